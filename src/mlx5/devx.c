/* SPDX-License-Identifier: MIT */
/*
 * DEVX: PRM mailboxes from the application straight to the device.
 *
 * On real hardware the kernel's mlx5_ib devx.c sits between libmlx5 and the
 * firmware; here this file plays that role. It does exactly what that layer
 * does to a mailbox and nothing more:
 *   - checks the opcode is one DEVX may issue through the call used (object
 *     create, object query/modify on *that* object, general command);
 *   - stamps the context's DEVX uid into the header;
 *   - for creates, forces the "umem valid" bits (a DEVX client describes
 *     queue memory by umem, never by raw addresses);
 *   - remembers the DESTROY mailbox derived from the create's in and out, and
 *     issues it on mlx5dv_devx_obj_destroy() or at context close.
 * Everything else (field values, states, references, ownership) is the
 * firmware's business and comes back as status + syndrome.
 *
 * Umems, UARs, EQs with MSI vectors, the asynchronous query channel and the
 * event channel are the other DEVX resources; see devx.h for the return
 * conventions.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mlx5/devx.h"
#include "mlx5/mlx5.h"
#include "prm/prm.h"
#include "util/log.h"
#include "util/symver.h"

/* ------------------------------------------------------------------ */
/* Opcodes not in prm_defs.h (PRM values)                             */
/* ------------------------------------------------------------------ */

enum {
	DX_OP_QUERY_ISSI = 0x10a,
	DX_OP_CREATE_PSV = 0x600,
	DX_OP_DESTROY_PSV = 0x601,
	DX_OP_QUERY_DCT = 0x713,
	DX_OP_ARM_DCT_FOR_KEY_VIOLATION = 0x714,
	DX_OP_QUERY_XRQ = 0x719,
	DX_OP_ARM_XRQ = 0x71a,
	DX_OP_QUERY_XRQ_DC_PARAMS_ENTRY = 0x725,
	DX_OP_SET_XRQ_DC_PARAMS_ENTRY = 0x726,
	DX_OP_QUERY_XRQ_ERROR_PARAMS = 0x727,
	DX_OP_RELEASE_XRQ_ERROR = 0x729,
	DX_OP_MODIFY_XRQ = 0x72a,
	DX_OP_QUERY_ESW_VPORT_CONTEXT = 0x752,
	DX_OP_QUERY_VNIC_ENV = 0x76f,
	DX_OP_QUERY_VPORT_COUNTER = 0x770,
	DX_OP_QUERY_Q_COUNTER = 0x773,
	DX_OP_CREATE_SCHEDULING_ELEMENT = 0x782,
	DX_OP_DESTROY_SCHEDULING_ELEMENT = 0x783,
	DX_OP_QUERY_SCHEDULING_ELEMENT = 0x784,
	DX_OP_MODIFY_SCHEDULING_ELEMENT = 0x785,
	DX_OP_GET_DROPPED_PACKET_LOG = 0x80a,
	DX_OP_QUERY_CONG_STATUS = 0x822,
	DX_OP_QUERY_CONG_PARAMS = 0x824,
	DX_OP_QUERY_CONG_STATISTICS = 0x826,
	DX_OP_ADD_VXLAN_UDP_DPORT = 0x827,
	DX_OP_DELETE_VXLAN_UDP_DPORT = 0x828,
	DX_OP_SET_L2_TABLE_ENTRY = 0x829,
	DX_OP_QUERY_L2_TABLE_ENTRY = 0x82a,
	DX_OP_DELETE_L2_TABLE_ENTRY = 0x82b,
	DX_OP_QUERY_LAG = 0x842,
	DX_OP_MODIFY_TIR = 0x901,
	DX_OP_QUERY_TIR = 0x903,
	DX_OP_MODIFY_TIS = 0x913,
	DX_OP_QUERY_TIS = 0x915,
	DX_OP_CREATE_RQT = 0x916,
	DX_OP_MODIFY_RQT = 0x917,
	DX_OP_DESTROY_RQT = 0x918,
	DX_OP_QUERY_RQT = 0x919,
	DX_OP_DESTROY_FLOW_TABLE = 0x931,
	DX_OP_QUERY_FLOW_TABLE = 0x932,
	DX_OP_CREATE_FLOW_GROUP = 0x933,
	DX_OP_DESTROY_FLOW_GROUP = 0x934,
	DX_OP_QUERY_FLOW_GROUP = 0x935,
	DX_OP_SET_FLOW_TABLE_ENTRY = 0x936,
	DX_OP_QUERY_FLOW_TABLE_ENTRY = 0x937,
	DX_OP_DELETE_FLOW_TABLE_ENTRY = 0x938,
	DX_OP_ALLOC_FLOW_COUNTER = 0x939,
	DX_OP_DEALLOC_FLOW_COUNTER = 0x93a,
	DX_OP_QUERY_FLOW_COUNTER = 0x93b,
	DX_OP_MODIFY_FLOW_TABLE = 0x93c,
	DX_OP_ALLOC_PACKET_REFORMAT_CONTEXT = 0x93d,
	DX_OP_DEALLOC_PACKET_REFORMAT_CONTEXT = 0x93e,
	DX_OP_QUERY_PACKET_REFORMAT_CONTEXT = 0x93f,
	DX_OP_ALLOC_MODIFY_HEADER_CONTEXT = 0x940,
	DX_OP_DEALLOC_MODIFY_HEADER_CONTEXT = 0x941,
	DX_OP_QUERY_MODIFY_HEADER_CONTEXT = 0x942,
	/* General commands that act on no object: [START, END). */
	DX_OP_GENERAL_START = 0xb00,
	DX_OP_GENERAL_END = 0xd00,
};

/* Event types (PRM "Event Queue Element types") DEVX subscriptions know. */
enum {
	DX_EV_COMP = 0x00,
	DX_EV_PATH_MIG = 0x01,
	DX_EV_COMM_EST = 0x02,
	DX_EV_SQ_DRAINED = 0x03,
	DX_EV_CQ_ERROR = 0x04,
	DX_EV_WQ_CATAS_ERROR = 0x05,
	DX_EV_PATH_MIG_FAILED = 0x07,
	DX_EV_PORT_CHANGE = 0x09,
	DX_EV_WQ_INVAL_REQ_ERROR = 0x10,
	DX_EV_WQ_ACCESS_ERROR = 0x11,
	DX_EV_SRQ_CATAS_ERROR = 0x12,
	DX_EV_SRQ_LAST_WQE = 0x13,
	DX_EV_SRQ_RQ_LIMIT = 0x14,
	DX_EV_XRQ_ERROR = 0x18,
	DX_EV_DCT_DRAINED = 0x1c,
	DX_EV_DCT_KEY_VIOLATION = 0x1d,
};

#define DX_HDR_BYTES 16		/* general_obj_in/out_cmd_hdr */
#define DX_DESTROY_MAX_DW 16	/* the largest destroy mailbox (delete_fte_in) */
#define DX_MAX_EVENTS 16	/* per subscribe call */
#define DX_EQE_BYTES 64
#define DX_BF_OFFSET 0x800	/* BlueFlame / send doorbell register of a UAR page */
#define DX_NR_VECTORS 256	/* eqc.intr is 8 bits */

/* ------------------------------------------------------------------ */
/* Mailbox field access by dword (big-endian PRM)                     */
/* ------------------------------------------------------------------ */

static uint32_t dw_get(const void *mbox, unsigned int dw, unsigned int bits)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)mbox + dw * 4, 4);
	v = be32toh(v);
	return bits >= 32 ? v : v & ((1u << bits) - 1);
}

static void dw_set(void *mbox, unsigned int dw, unsigned int bits, uint32_t val)
{
	uint32_t v, mask = bits >= 32 ? ~0u : (1u << bits) - 1;

	memcpy(&v, (uint8_t *)mbox + dw * 4, 4);
	v = (be32toh(v) & ~mask) | (val & mask);
	v = htobe32(v);
	memcpy((uint8_t *)mbox + dw * 4, &v, 4);
}

static uint16_t mbox_opcode(const void *in)
{
	return (uint16_t)(dw_get(in, 0, 32) >> 16);
}

static uint16_t mbox_op_mod(const void *in)
{
	return (uint16_t)dw_get(in, 1, 16);
}

static uint64_t enc_obj_id(uint32_t creator, uint32_t id)
{
	return (uint64_t)creator << 32 | id;
}

/* ------------------------------------------------------------------ */
/* Which opcodes DEVX accepts where (kernel devx.c tables)            */
/* ------------------------------------------------------------------ */

static bool is_whitelist_cmd(uint16_t op)
{
	return op == MLX5_CMD_OP_QUERY_HCA_CAP ||
	       op == MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT ||
	       op == DX_OP_QUERY_ESW_VPORT_CONTEXT;
}

static bool is_general_cmd(uint16_t op)
{
	if (op >= DX_OP_GENERAL_START && op < DX_OP_GENERAL_END)
		return true;
	switch (op) {
	case MLX5_CMD_OP_QUERY_HCA_CAP:
	case MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT:
	case DX_OP_QUERY_ESW_VPORT_CONTEXT:
	case MLX5_CMD_OP_QUERY_VPORT_STATE:
	case MLX5_CMD_OP_QUERY_ADAPTER:
	case DX_OP_QUERY_ISSI:
	case MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT:
	case MLX5_CMD_OP_QUERY_ROCE_ADDRESS:
	case DX_OP_QUERY_VNIC_ENV:
	case DX_OP_QUERY_VPORT_COUNTER:
	case DX_OP_GET_DROPPED_PACKET_LOG:
	case MLX5_CMD_OP_NOP:
	case DX_OP_QUERY_CONG_STATUS:
	case DX_OP_QUERY_CONG_PARAMS:
	case DX_OP_QUERY_CONG_STATISTICS:
	case DX_OP_QUERY_LAG:
		return true;
	default:
		return false;
	}
}

/*
 * Object creates: where the new object's number is, and how to destroy it.
 *   id_in:   the number comes from the input mailbox (SET_FTE, ATTACH_TO_MCG,
 *            ADD_VXLAN_UDP_DPORT, SET_L2_TABLE_ENTRY), else the output;
 *   id_dw / id_bits: its dword and width (low bits of the dword);
 *   destroy / dinlen: the destroy opcode and mailbox size;
 *   did_dw / did_bits: where the number goes in the destroy mailbox.
 * Special layouts (general objects, flow steering, scheduling elements,
 * multicast) get extra fields in derive_destroy().
 */
struct create_desc {
	uint16_t create;
	uint16_t destroy;
	bool id_in;
	uint8_t id_dw, id_bits;
	uint8_t did_dw, did_bits;
	uint8_t dinlen;
};

static const struct create_desc create_table[] = {
	{ MLX5_CMD_OP_CREATE_MKEY, MLX5_CMD_OP_DESTROY_MKEY, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_CQ, MLX5_CMD_OP_DESTROY_CQ, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_QP, MLX5_CMD_OP_DESTROY_QP, false, 2, 24, 2, 24, 16 },
	{ DX_OP_CREATE_PSV, DX_OP_DESTROY_PSV, false, 4, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_SRQ, MLX5_CMD_OP_DESTROY_SRQ, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_XRC_SRQ, MLX5_CMD_OP_DESTROY_XRC_SRQ, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_DCT, MLX5_CMD_OP_DESTROY_DCT, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_XRQ, MLX5_CMD_OP_DESTROY_XRQ, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_ALLOC_Q_COUNTER, MLX5_CMD_OP_DEALLOC_Q_COUNTER, false, 2, 8, 2, 8, 16 },
	{ DX_OP_CREATE_SCHEDULING_ELEMENT, DX_OP_DESTROY_SCHEDULING_ELEMENT, false, 4, 32, 4, 32, 64 },
	{ MLX5_CMD_OP_ALLOC_PD, MLX5_CMD_OP_DEALLOC_PD, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_ATTACH_TO_MCG, MLX5_CMD_OP_DETACH_FROM_MCG, true, 2, 24, 2, 24, 32 },
	{ MLX5_CMD_OP_ALLOC_XRCD, MLX5_CMD_OP_DEALLOC_XRCD, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, false, 2, 24, 2, 24, 16 },
	{ DX_OP_ADD_VXLAN_UDP_DPORT, DX_OP_DELETE_VXLAN_UDP_DPORT, true, 3, 16, 3, 16, 16 },
	{ DX_OP_SET_L2_TABLE_ENTRY, DX_OP_DELETE_L2_TABLE_ENTRY, true, 3, 24, 3, 24, 16 },
	{ MLX5_CMD_OP_CREATE_TIR, MLX5_CMD_OP_DESTROY_TIR, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_SQ, MLX5_CMD_OP_DESTROY_SQ, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_RQ, MLX5_CMD_OP_DESTROY_RQ, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_RMP, MLX5_CMD_OP_DESTROY_RMP, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_TIS, MLX5_CMD_OP_DESTROY_TIS, false, 2, 24, 2, 24, 16 },
	{ DX_OP_CREATE_RQT, DX_OP_DESTROY_RQT, false, 2, 24, 2, 24, 16 },
	{ MLX5_CMD_OP_CREATE_FLOW_TABLE, DX_OP_DESTROY_FLOW_TABLE, false, 2, 24, 5, 24, 64 },
	{ DX_OP_CREATE_FLOW_GROUP, DX_OP_DESTROY_FLOW_GROUP, false, 2, 32, 6, 32, 64 },
	{ DX_OP_SET_FLOW_TABLE_ENTRY, DX_OP_DELETE_FLOW_TABLE_ENTRY, true, 8, 32, 8, 32, 64 },
	{ DX_OP_ALLOC_FLOW_COUNTER, DX_OP_DEALLOC_FLOW_COUNTER, false, 2, 32, 2, 32, 16 },
	{ DX_OP_ALLOC_PACKET_REFORMAT_CONTEXT, DX_OP_DEALLOC_PACKET_REFORMAT_CONTEXT, false, 2, 32, 2, 32, 16 },
	{ DX_OP_ALLOC_MODIFY_HEADER_CONTEXT, DX_OP_DEALLOC_MODIFY_HEADER_CONTEXT, false, 2, 32, 2, 32, 16 },
	{ MLX5_CMD_OP_CREATE_GENERAL_OBJECT, MLX5_CMD_OP_DESTROY_GENERAL_OBJECT, false, 2, 32, 2, 32, 16 },
	{ MLX5_CMD_OP_CREATE_UMEM, MLX5_CMD_OP_DESTROY_UMEM, false, 2, 32, 2, 32, 16 },
};

static const struct create_desc *create_find(const void *in)
{
	uint16_t op = mbox_opcode(in);
	size_t i;

	/* Two creates are only creates in one form. */
	if (op == DX_OP_SET_FLOW_TABLE_ENTRY && mbox_op_mod(in) != 0)
		return NULL;
	if (op == DX_OP_CREATE_PSV && (dw_get(in, 2, 32) >> 28) != 1) /* num_psv */
		return NULL;
	if (op == MLX5_CMD_OP_CREATE_UMEM)
		return NULL;	/* only through mlx5dv_devx_umem_reg() */
	for (i = 0; i < sizeof(create_table) / sizeof(create_table[0]); i++)
		if (create_table[i].create == op)
			return &create_table[i];
	return NULL;
}

/*
 * Query and modify commands: which create made the object they name, and
 * where its number is (kernel devx_get_obj_id()).
 */
struct objcmd_desc {
	uint16_t op;
	uint16_t creator;
	uint8_t dw, bits;
	bool modify;
};

static const struct objcmd_desc objcmd_table[] = {
	{ MLX5_CMD_OP_QUERY_MKEY, MLX5_CMD_OP_CREATE_MKEY, 2, 24, false },
	{ MLX5_CMD_OP_QUERY_CQ, MLX5_CMD_OP_CREATE_CQ, 2, 24, false },
	{ MLX5_CMD_OP_MODIFY_CQ, MLX5_CMD_OP_CREATE_CQ, 2, 24, true },
	{ MLX5_CMD_OP_RST2INIT_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, true },
	{ MLX5_CMD_OP_INIT2RTR_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, true },
	{ MLX5_CMD_OP_RTR2RTS_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, true },
	{ MLX5_CMD_OP_RTS2RTS_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, true },
	{ MLX5_CMD_OP_SQERR2RTS_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, true },
	{ MLX5_CMD_OP_2ERR_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, true },
	{ MLX5_CMD_OP_2RST_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, true },
	{ MLX5_CMD_OP_QUERY_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, false },
	{ MLX5_CMD_OP_INIT2INIT_QP, MLX5_CMD_OP_CREATE_QP, 2, 24, true },
	{ MLX5_CMD_OP_QUERY_SRQ, MLX5_CMD_OP_CREATE_SRQ, 2, 24, false },
	{ MLX5_CMD_OP_ARM_RQ, MLX5_CMD_OP_CREATE_RQ, 2, 24, true },
	{ MLX5_CMD_OP_QUERY_XRC_SRQ, MLX5_CMD_OP_CREATE_XRC_SRQ, 2, 24, false },
	{ MLX5_CMD_OP_ARM_XRC_SRQ, MLX5_CMD_OP_CREATE_XRC_SRQ, 2, 24, true },
	{ DX_OP_QUERY_DCT, MLX5_CMD_OP_CREATE_DCT, 2, 24, false },
	{ DX_OP_ARM_DCT_FOR_KEY_VIOLATION, MLX5_CMD_OP_CREATE_DCT, 2, 24, true },
	{ DX_OP_QUERY_XRQ, MLX5_CMD_OP_CREATE_XRQ, 2, 24, false },
	{ DX_OP_ARM_XRQ, MLX5_CMD_OP_CREATE_XRQ, 2, 24, true },
	{ DX_OP_QUERY_XRQ_DC_PARAMS_ENTRY, MLX5_CMD_OP_CREATE_XRQ, 2, 24, false },
	{ DX_OP_SET_XRQ_DC_PARAMS_ENTRY, MLX5_CMD_OP_CREATE_XRQ, 2, 24, true },
	{ DX_OP_QUERY_XRQ_ERROR_PARAMS, MLX5_CMD_OP_CREATE_XRQ, 2, 24, false },
	{ DX_OP_RELEASE_XRQ_ERROR, MLX5_CMD_OP_CREATE_XRQ, 2, 24, true },
	{ DX_OP_MODIFY_XRQ, MLX5_CMD_OP_CREATE_XRQ, 2, 24, true },
	{ DX_OP_QUERY_Q_COUNTER, MLX5_CMD_OP_ALLOC_Q_COUNTER, 7, 8, false },
	{ DX_OP_QUERY_SCHEDULING_ELEMENT, DX_OP_CREATE_SCHEDULING_ELEMENT, 4, 32, false },
	{ DX_OP_MODIFY_SCHEDULING_ELEMENT, DX_OP_CREATE_SCHEDULING_ELEMENT, 4, 32, true },
	{ DX_OP_ADD_VXLAN_UDP_DPORT, DX_OP_ADD_VXLAN_UDP_DPORT, 3, 16, true },
	{ DX_OP_SET_L2_TABLE_ENTRY, DX_OP_SET_L2_TABLE_ENTRY, 3, 24, true },
	{ DX_OP_QUERY_L2_TABLE_ENTRY, DX_OP_SET_L2_TABLE_ENTRY, 3, 24, false },
	{ DX_OP_MODIFY_TIR, MLX5_CMD_OP_CREATE_TIR, 2, 24, true },
	{ DX_OP_QUERY_TIR, MLX5_CMD_OP_CREATE_TIR, 2, 24, false },
	{ MLX5_CMD_OP_MODIFY_SQ, MLX5_CMD_OP_CREATE_SQ, 2, 24, true },
	{ MLX5_CMD_OP_QUERY_SQ, MLX5_CMD_OP_CREATE_SQ, 2, 24, false },
	{ MLX5_CMD_OP_MODIFY_RQ, MLX5_CMD_OP_CREATE_RQ, 2, 24, true },
	{ MLX5_CMD_OP_QUERY_RQ, MLX5_CMD_OP_CREATE_RQ, 2, 24, false },
	{ MLX5_CMD_OP_MODIFY_RMP, MLX5_CMD_OP_CREATE_RMP, 2, 24, true },
	{ MLX5_CMD_OP_QUERY_RMP, MLX5_CMD_OP_CREATE_RMP, 2, 24, false },
	{ DX_OP_MODIFY_TIS, MLX5_CMD_OP_CREATE_TIS, 2, 24, true },
	{ DX_OP_QUERY_TIS, MLX5_CMD_OP_CREATE_TIS, 2, 24, false },
	{ DX_OP_MODIFY_RQT, DX_OP_CREATE_RQT, 2, 24, true },
	{ DX_OP_QUERY_RQT, DX_OP_CREATE_RQT, 2, 24, false },
	{ DX_OP_QUERY_FLOW_TABLE, MLX5_CMD_OP_CREATE_FLOW_TABLE, 5, 24, false },
	{ DX_OP_MODIFY_FLOW_TABLE, MLX5_CMD_OP_CREATE_FLOW_TABLE, 5, 24, true },
	{ DX_OP_QUERY_FLOW_GROUP, DX_OP_CREATE_FLOW_GROUP, 6, 32, false },
	{ DX_OP_SET_FLOW_TABLE_ENTRY, DX_OP_SET_FLOW_TABLE_ENTRY, 8, 32, true },
	{ DX_OP_QUERY_FLOW_TABLE_ENTRY, DX_OP_SET_FLOW_TABLE_ENTRY, 8, 32, false },
	{ DX_OP_QUERY_FLOW_COUNTER, DX_OP_ALLOC_FLOW_COUNTER, 7, 32, false },
	{ DX_OP_QUERY_PACKET_REFORMAT_CONTEXT, DX_OP_ALLOC_PACKET_REFORMAT_CONTEXT, 2, 32, false },
	{ DX_OP_QUERY_MODIFY_HEADER_CONTEXT, DX_OP_ALLOC_MODIFY_HEADER_CONTEXT, 2, 32, false },
	{ MLX5_CMD_OP_MODIFY_GENERAL_OBJECT, MLX5_CMD_OP_CREATE_GENERAL_OBJECT, 2, 32, true },
	{ MLX5_CMD_OP_QUERY_GENERAL_OBJECT, MLX5_CMD_OP_CREATE_GENERAL_OBJECT, 2, 32, false },
};

static const struct objcmd_desc *objcmd_find(const void *in, bool modify)
{
	uint16_t op = mbox_opcode(in);
	size_t i;

	/* SET_FLOW_TABLE_ENTRY is a modify only with op_mod 1. */
	if (op == DX_OP_SET_FLOW_TABLE_ENTRY && mbox_op_mod(in) != 1)
		return NULL;
	for (i = 0; i < sizeof(objcmd_table) / sizeof(objcmd_table[0]); i++)
		if (objcmd_table[i].op == op && objcmd_table[i].modify == modify)
			return &objcmd_table[i];
	return NULL;
}

/* The encoded (creator, number) a query/modify mailbox names; 0 if none. */
static uint64_t objcmd_target(const struct objcmd_desc *d, const void *in)
{
	uint32_t creator = d->creator;

	if (creator == MLX5_CMD_OP_CREATE_GENERAL_OBJECT)
		creator |= dw_get(in, 1, 16) << 16;	/* obj_type */
	return enc_obj_id(creator, dw_get(in, d->dw, d->bits));
}

/* What the kernel sets in a create (or MODIFY_CQ) mailbox: umems only. */
static void force_umem_valid(void *in, size_t inlen)
{
	uint16_t op = mbox_opcode(in);

#define DX_SET_IF(typ, fld)                                                    \
	do {                                                                   \
		if (inlen >= DEVX_ST_SZ_BYTES(typ))                            \
			DEVX_SET(typ, in, fld, 1);                             \
	} while (0)
	switch (op) {
	case MLX5_CMD_OP_CREATE_CQ:
		DX_SET_IF(create_cq_in, cq_umem_valid);
		DX_SET_IF(create_cq_in, cq_context.dbr_umem_valid);
		break;
	case MLX5_CMD_OP_CREATE_QP:
		DX_SET_IF(create_qp_in, qpc.dbr_umem_valid);
		DX_SET_IF(create_qp_in, wq_umem_valid);
		break;
	case MLX5_CMD_OP_MODIFY_CQ:
		DX_SET_IF(modify_cq_in, cq_umem_valid);
		break;
	case MLX5_CMD_OP_CREATE_RMP:
		DX_SET_IF(create_rmp_in, ctx.wq.dbr_umem_valid);
		DX_SET_IF(create_rmp_in, ctx.wq.wq_umem_valid);
		break;
	case MLX5_CMD_OP_CREATE_XRC_SRQ:
		DX_SET_IF(create_xrc_srq_in, xrc_srq_umem_valid);
		DX_SET_IF(create_xrc_srq_in, xrc_srq_context_entry.dbr_umem_valid);
		break;
	/* CREATE_SQ / CREATE_RQ / CREATE_XRQ: the kernel sets wq.dbr_umem_valid
	 * and wq.wq_umem_valid too; their contexts are not in prm/mlx5_ifc.h
	 * and the firmware does not implement them yet, so they pass as is. */
	default:
		break;
	}
#undef DX_SET_IF
}

/*
 * Builds the destroy mailbox for a successful create (kernel
 * devx_obj_build_destroy_cmd()); returns the encoded object number.
 */
static uint64_t derive_destroy(const struct create_desc *d, const void *in,
			       const void *out, uint32_t *din, uint32_t *dinlen,
			       uint32_t *obj_id)
{
	uint16_t uid = (uint16_t)dw_get(in, 0, 16);
	uint32_t creator = d->create;
	uint32_t id;

	id = dw_get(d->id_in ? in : out, d->id_dw, d->id_bits);
	memset(din, 0, DX_DESTROY_MAX_DW * 4);
	*dinlen = d->dinlen;
	dw_set(din, 0, 32, (uint32_t)d->destroy << 16 | uid);
	dw_set(din, d->did_dw, d->did_bits, id);
	switch (d->create) {
	case MLX5_CMD_OP_CREATE_GENERAL_OBJECT:
		creator |= dw_get(in, 1, 16) << 16;
		dw_set(din, 1, 16, dw_get(in, 1, 16));	/* obj_type */
		break;
	case MLX5_CMD_OP_CREATE_FLOW_TABLE:
		dw_set(din, 2, 32, dw_get(in, 2, 32));	/* other_vport, vport_number */
		dw_set(din, 4, 32, dw_get(in, 4, 32) & 0xff000000u); /* table_type */
		break;
	case DX_OP_CREATE_FLOW_GROUP:
	case DX_OP_SET_FLOW_TABLE_ENTRY:
		dw_set(din, 2, 32, dw_get(in, 2, 32));
		dw_set(din, 4, 32, dw_get(in, 4, 32) & 0xff000000u);
		dw_set(din, 5, 24, dw_get(in, 5, 24));	/* table_id */
		break;
	case DX_OP_CREATE_SCHEDULING_ELEMENT:
		/* scheduling_hierarchy, top byte of dword 2 */
		dw_set(din, 2, 32, dw_get(in, 2, 32) & 0xff000000u);
		break;
	case MLX5_CMD_OP_ATTACH_TO_MCG:
		memcpy((uint8_t *)din + 0x10, (const uint8_t *)in + 0x10, 16);
		break;
	default:
		break;
	}
	*obj_id = id;
	return enc_obj_id(creator, id);
}

/* ------------------------------------------------------------------ */
/* Resources and their owner contexts                                 */
/* ------------------------------------------------------------------ */

enum devx_kind {
	DX_OBJ = 1,
	DX_UMEM,
	DX_UAR,
	DX_EQ,
	DX_MSI,
	DX_CMD_COMP,
	DX_EVCH,
};

struct devx_res {
	struct devx_res *prev, *next;
	struct mlx5_context *ctx;
	enum devx_kind kind;
	bool parked;		/* context close: refused, retry next pass */
};

static pthread_mutex_t devx_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int devx_nevch;	/* event channels alive: EQE fast path */
static struct devx_res devx_all = { &devx_all, &devx_all, NULL, 0, false };

static void res_add(struct devx_res *r, struct mlx5_context *ctx,
		    enum devx_kind kind)
{
	r->ctx = ctx;
	r->kind = kind;
	r->parked = false;
	pthread_mutex_lock(&devx_lock);
	r->prev = devx_all.prev;
	r->next = &devx_all;
	devx_all.prev->next = r;
	devx_all.prev = r;
	pthread_mutex_unlock(&devx_lock);
}

static void res_del_locked(struct devx_res *r)
{
	if (!r->next)
		return;
	r->prev->next = r->next;
	r->next->prev = r->prev;
	r->prev = r->next = NULL;
}

static void res_del(struct devx_res *r)
{
	pthread_mutex_lock(&devx_lock);
	res_del_locked(r);
	pthread_mutex_unlock(&devx_lock);
}

#define RES_OF(p, type) ((type *)((char *)(p) - offsetof(type, res)))

struct devx_sub;

/* The public type is opaque in mlx5dv.h; this is the provider's. */
struct mlx5dv_devx_obj {
	struct devx_res res;
	uint64_t enc_id;	/* creator opcode (| obj_type << 16) << 32 | number */
	uint32_t obj_id;
	uint32_t dinlen;
	uint32_t din[DX_DESTROY_MAX_DW];
};

struct devx_umem {
	struct mlx5dv_devx_umem dv;
	struct devx_res res;
	void *addr;
	size_t size;
	uint32_t din[DX_DESTROY_MAX_DW];
};

struct devx_uar {
	struct mlx5dv_devx_uar dv;
	struct devx_res res;
	bool nc_singleton;
};

struct devx_eq {
	struct mlx5dv_devx_eq dv;
	struct devx_res res;
	struct mlx5_buf buf;
	uint32_t eqn;
};

struct devx_msi {
	struct mlx5dv_devx_msi_vector dv;
	struct devx_res res;
	struct smx_dev *hca;
};

struct devx_cmd_comp {
	struct mlx5dv_devx_cmd_comp dv;	/* fd: the reading end */
	struct devx_res res;
	int wfd;			/* the device's end */
};

struct devx_sub {
	struct devx_sub *next;
	uint16_t event;
	struct mlx5dv_devx_obj *obj;	/* NULL: unaffiliated */
	uint64_t cookie;
	int eventfd;			/* subscribe_devx_event_fd: a dup, else -1 */
	bool pending;			/* OMIT_EV_DATA: one unread notice */
};

struct devx_evch {
	struct mlx5dv_devx_event_channel dv;
	struct devx_res res;
	int wfd;
	bool omit_data;
	struct devx_sub *subs;
};

static bool ctx_has_devx(struct mlx5_context *ctx)
{
	return ctx->dv_flags & MLX5DV_CONTEXT_FLAGS_DEVX;
}

/* The uid a command of @ctx runs under (kernel devx_get_uid()), or -errno. */
static int ctx_uid(struct mlx5_context *ctx, const void *in)
{
	if (ctx_has_devx(ctx))
		return ctx->uctx->uid;
	/* The whitelist: the kernel's device-wide whitelist uid serves
	 * non-DEVX contexts; the context's own uid plays it here. */
	if (is_whitelist_cmd(mbox_opcode(in)))
		return ctx->uctx->uid;
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Command execution                                                  */
/* ------------------------------------------------------------------ */

/* Mailbox sanity the uverbs layer applies before devx.c sees anything. */
static int check_mboxes(const void *in, size_t inlen, const void *out,
			size_t outlen)
{
	if (inlen < DX_HDR_BYTES || outlen < DX_HDR_BYTES)
		return EINVAL;
	if (!in || !out)
		return EFAULT;
	if (inlen > (1u << 24) || outlen > (1u << 24))
		return EINVAL;
	return 0;
}

/*
 * Runs a private copy of @in with @uid stamped (and umem-valid bits forced
 * when @force) and the answer in @out. Returns 0 (status OK), EREMOTEIO (the
 * device answered with a failure, which is in @out) or another errno.
 */
static int dx_exec(struct mlx5_context *ctx, uint16_t uid, const void *in,
		   size_t inlen, void *out, size_t outlen, bool force,
		   void **kept_in)
{
	void *cin;
	int ret;

	cin = malloc((inlen + 7) & ~(size_t)7);
	if (!cin)
		return ENOMEM;
	memcpy(cin, in, inlen);
	dw_set(cin, 0, 16, uid);
	if (force)
		force_umem_valid(cin, inlen);
	memset(out, 0, outlen);
	ret = smx_dev_cmd(ctx->hca, cin, inlen, out, outlen);
	if (ret)
		ret = -ret;
	else if (DEVX_GET(mbox_out, out, status) != MLX5_CMD_STAT_OK)
		ret = EREMOTEIO;
	if (kept_in && !ret)
		*kept_in = cin;
	else
		free(cin);
	return ret;
}

/* Destroy-style command built by us: status -> errno as the kernel does. */
static int dx_exec_destroy(struct mlx5_context *ctx, uint32_t *din,
			   uint32_t dinlen)
{
	uint32_t out[DEVX_ST_SZ_DW(general_obj_out_cmd_hdr)] = {};

	return mlx5_cmd_exec_hca(ctx->hca, (uint16_t)dw_get(din, 0, 16), din,
				 dinlen, out, sizeof(out));
}

/* ------------------------------------------------------------------ */
/* General commands and objects                                       */
/* ------------------------------------------------------------------ */

SMX_EXPORT int mlx5dv_devx_general_cmd(struct ibv_context *context,
				       const void *in, size_t inlen, void *out,
				       size_t outlen)
{
	struct mlx5_context *ctx;
	int ret, uid;

	if (!context)
		return errno = EINVAL;
	ctx = to_mctx(context);
	ret = check_mboxes(in, inlen, out, outlen);
	if (ret)
		return errno = ret;
	uid = ctx_uid(ctx, in);
	if (uid < 0)
		return errno = -uid;
	if (!is_general_cmd(mbox_opcode(in)))
		return errno = EINVAL;
	ret = dx_exec(ctx, (uint16_t)uid, in, inlen, out, outlen, false, NULL);
	if (ret)
		errno = ret;
	return ret;
}

SMX_EXPORT struct mlx5dv_devx_obj *
mlx5dv_devx_obj_create(struct ibv_context *context, const void *in,
		       size_t inlen, void *out, size_t outlen)
{
	const struct create_desc *d;
	struct mlx5dv_devx_obj *obj;
	struct mlx5_context *ctx;
	void *cin = NULL;
	int ret, uid;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	ctx = to_mctx(context);
	ret = check_mboxes(in, inlen, out, outlen);
	if (ret)
		goto fail;
	if (dw_get(in, 1, 32) >> 16) {	/* vhca_tunnel_id */
		ret = EINVAL;
		goto fail;
	}
	uid = ctx_uid(ctx, in);
	if (uid < 0) {
		ret = -uid;
		goto fail;
	}
	d = create_find(in);
	if (!d) {
		ret = EINVAL;
		goto fail;
	}
	if (d->create == MLX5_CMD_OP_CREATE_MKEY &&
	    inlen < DEVX_BYTE_OFF(create_mkey_in, memory_key_mkey_entry) +
			    DEVX_FLD_SZ_BYTES(create_mkey_in, memory_key_mkey_entry)) {
		ret = EINVAL;
		goto fail;
	}
	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		ret = ENOMEM;
		goto fail;
	}
	if (d->create == MLX5_CMD_OP_CREATE_MKEY) {
		/* MTT mkeys are made of umems; KLM/KSM mkeys point at mkeys. */
		const void *mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
		unsigned int am = DEVX_GET(mkc, mkc, access_mode_1_0) |
				  DEVX_GET(mkc, mkc, access_mode_4_2) << 2;

		cin = malloc((inlen + 7) & ~(size_t)7);
		if (!cin) {
			free(obj);
			ret = ENOMEM;
			goto fail;
		}
		memcpy(cin, in, inlen);
		if (am != MLX5_MKC_ACCESS_MODE_KLMS && am != MLX5_MKC_ACCESS_MODE_KSM)
			DEVX_SET(create_mkey_in, cin, mkey_umem_valid, 1);
		ret = dx_exec(ctx, (uint16_t)uid, cin, inlen, out, outlen, false, NULL);
		if (!ret)
			dw_set(cin, 0, 16, (uint16_t)uid);
	} else {
		ret = dx_exec(ctx, (uint16_t)uid, in, inlen, out, outlen, true, &cin);
	}
	if (ret) {
		free(cin);
		free(obj);
		goto fail;
	}
	obj->enc_id = derive_destroy(d, cin, out, obj->din, &obj->dinlen,
				     &obj->obj_id);
	free(cin);
	res_add(&obj->res, ctx, DX_OBJ);
	return obj;

fail:
	errno = ret;
	return NULL;
}

static void subs_drop_obj(struct mlx5dv_devx_obj *obj);

static int obj_destroy(struct mlx5dv_devx_obj *obj)
{
	int ret = dx_exec_destroy(obj->res.ctx, obj->din, obj->dinlen);

	if (ret)
		return ret;
	subs_drop_obj(obj);
	res_del(&obj->res);
	free(obj);
	return 0;
}

SMX_EXPORT int mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	int ret;

	if (!obj)
		return errno = EINVAL;
	ret = obj_destroy(obj);
	if (ret)
		errno = ret;
	return ret;
}

/*
 * Query / modify of an object the context owns, named in the mailbox by
 * @target (encoded creator | number): the kernel's common path.
 */
static int obj_cmd(struct mlx5_context *ctx, const uint64_t *targets,
		   unsigned int ntargets, const void *in, size_t inlen,
		   void *out, size_t outlen, bool modify)
{
	const struct objcmd_desc *d;
	uint64_t want;
	unsigned int i;
	int ret, uid;

	ret = check_mboxes(in, inlen, out, outlen);
	if (ret)
		return ret;
	if (dw_get(in, 1, 32) >> 16)	/* vhca_tunnel_id */
		return EINVAL;
	uid = ctx_uid(ctx, in);
	if (uid < 0)
		return -uid;
	d = objcmd_find(in, modify);
	if (!d)
		return EINVAL;
	want = objcmd_target(d, in);
	for (i = 0; i < ntargets; i++)
		if (targets[i] == want)
			break;
	if (i == ntargets)
		return EINVAL;
	return dx_exec(ctx, (uint16_t)uid, in, inlen, out, outlen, modify, NULL);
}

SMX_EXPORT int mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj,
				     const void *in, size_t inlen, void *out,
				     size_t outlen)
{
	int ret;

	if (!obj)
		return errno = EINVAL;
	ret = obj_cmd(obj->res.ctx, &obj->enc_id, 1, in, inlen, out, outlen, false);
	if (ret)
		errno = ret;
	return ret;
}

SMX_EXPORT int mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj,
				      const void *in, size_t inlen, void *out,
				      size_t outlen)
{
	int ret;

	if (!obj)
		return errno = EINVAL;
	ret = obj_cmd(obj->res.ctx, &obj->enc_id, 1, in, inlen, out, outlen, true);
	if (ret)
		errno = ret;
	return ret;
}

/* ---- the same on objects created through verbs ---- */

static int verbs_obj_cmd(struct ibv_context *context, uint64_t target,
			 const void *in, size_t inlen, void *out, size_t outlen,
			 bool modify)
{
	int ret;

	if (!context)
		return errno = EINVAL;
	ret = obj_cmd(to_mctx(context), &target, 1, in, inlen, out, outlen, modify);
	if (ret)
		errno = ret;
	return ret;
}

static uint64_t cq_target(struct ibv_cq *cq)
{
	return enc_obj_id(MLX5_CMD_OP_CREATE_CQ, to_mcq(cq)->cqn);
}

static uint64_t qp_target(struct ibv_qp *qp)
{
	return enc_obj_id(MLX5_CMD_OP_CREATE_QP, qp->qp_num);
}

static uint64_t srq_target(struct ibv_srq *srq)
{
	struct mlx5_srq *s = to_msrq(srq);

	return enc_obj_id(s->is_xrc ? MLX5_CMD_OP_CREATE_XRC_SRQ :
				      MLX5_CMD_OP_CREATE_SRQ, s->srqn);
}

SMX_EXPORT int mlx5dv_devx_cq_query(struct ibv_cq *cq, const void *in,
				    size_t inlen, void *out, size_t outlen)
{
	if (!cq)
		return errno = EINVAL;
	return verbs_obj_cmd(cq->context, cq_target(cq), in, inlen, out, outlen, false);
}

SMX_EXPORT int mlx5dv_devx_cq_modify(struct ibv_cq *cq, const void *in,
				     size_t inlen, void *out, size_t outlen)
{
	if (!cq)
		return errno = EINVAL;
	return verbs_obj_cmd(cq->context, cq_target(cq), in, inlen, out, outlen, true);
}

SMX_EXPORT int mlx5dv_devx_qp_query(struct ibv_qp *qp, const void *in,
				    size_t inlen, void *out, size_t outlen)
{
	if (!qp)
		return errno = EINVAL;
	return verbs_obj_cmd(qp->context, qp_target(qp), in, inlen, out, outlen, false);
}

SMX_EXPORT int mlx5dv_devx_qp_modify(struct ibv_qp *qp, const void *in,
				     size_t inlen, void *out, size_t outlen)
{
	if (!qp)
		return errno = EINVAL;
	return verbs_obj_cmd(qp->context, qp_target(qp), in, inlen, out, outlen, true);
}

SMX_EXPORT int mlx5dv_devx_srq_query(struct ibv_srq *srq, const void *in,
				     size_t inlen, void *out, size_t outlen)
{
	if (!srq)
		return errno = EINVAL;
	return verbs_obj_cmd(srq->context, srq_target(srq), in, inlen, out, outlen, false);
}

SMX_EXPORT int mlx5dv_devx_srq_modify(struct ibv_srq *srq, const void *in,
				      size_t inlen, void *out, size_t outlen)
{
	if (!srq)
		return errno = EINVAL;
	return verbs_obj_cmd(srq->context, srq_target(srq), in, inlen, out, outlen, true);
}

SMX_EXPORT int mlx5dv_devx_wq_query(struct ibv_wq *wq, const void *in,
				    size_t inlen, void *out, size_t outlen)
{
	if (!wq)
		return errno = EINVAL;
	return verbs_obj_cmd(wq->context, enc_obj_id(MLX5_CMD_OP_CREATE_RQ, wq->wq_num),
			     in, inlen, out, outlen, false);
}

SMX_EXPORT int mlx5dv_devx_wq_modify(struct ibv_wq *wq, const void *in,
				     size_t inlen, void *out, size_t outlen)
{
	if (!wq)
		return errno = EINVAL;
	return verbs_obj_cmd(wq->context, enc_obj_id(MLX5_CMD_OP_CREATE_RQ, wq->wq_num),
			     in, inlen, out, outlen, true);
}

SMX_EXPORT int mlx5dv_devx_ind_tbl_query(struct ibv_rwq_ind_table *ind_tbl,
					 const void *in, size_t inlen,
					 void *out, size_t outlen)
{
	if (!ind_tbl)
		return errno = EINVAL;
	return verbs_obj_cmd(ind_tbl->context,
			     enc_obj_id(DX_OP_CREATE_RQT, ind_tbl->ind_tbl_num),
			     in, inlen, out, outlen, false);
}

SMX_EXPORT int mlx5dv_devx_ind_tbl_modify(struct ibv_rwq_ind_table *ind_tbl,
					  const void *in, size_t inlen,
					  void *out, size_t outlen)
{
	if (!ind_tbl)
		return errno = EINVAL;
	return verbs_obj_cmd(ind_tbl->context,
			     enc_obj_id(DX_OP_CREATE_RQT, ind_tbl->ind_tbl_num),
			     in, inlen, out, outlen, true);
}

/* ------------------------------------------------------------------ */
/* Asynchronous query                                                 */
/* ------------------------------------------------------------------ */

/*
 * A command-completion channel is a SEQPACKET socket pair: one record per
 * answer (wr_id, then the out mailbox), read whole, pollable like the
 * kernel's anonymous fd. The device's end is non-blocking; a full channel
 * answers EAGAIN as the kernel does past its 1 MiB of pending answers.
 */
static int seqpacket_pair(int *rfd, int *wfd)
{
	int sv[2], sz = 1 << 20;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return errno;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	shutdown(sv[0], SHUT_WR);
	shutdown(sv[1], SHUT_RD);
	*rfd = sv[0];
	*wfd = sv[1];
	return 0;
}

SMX_EXPORT struct mlx5dv_devx_cmd_comp *
mlx5dv_devx_create_cmd_comp(struct ibv_context *context)
{
	struct devx_cmd_comp *cc;
	int ret;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	cc = calloc(1, sizeof(*cc));
	if (!cc) {
		errno = ENOMEM;
		return NULL;
	}
	ret = seqpacket_pair(&cc->dv.fd, &cc->wfd);
	if (ret) {
		free(cc);
		errno = ret;
		return NULL;
	}
	res_add(&cc->res, to_mctx(context), DX_CMD_COMP);
	return &cc->dv;
}

static void cmd_comp_free(struct devx_cmd_comp *cc)
{
	res_del(&cc->res);
	close(cc->wfd);
	close(cc->dv.fd);
	free(cc);
}

SMX_EXPORT void
mlx5dv_devx_destroy_cmd_comp(struct mlx5dv_devx_cmd_comp *cmd_comp)
{
	if (cmd_comp)
		cmd_comp_free(SMX_CONTAINER_OF(cmd_comp, struct devx_cmd_comp, dv));
}

SMX_EXPORT int
mlx5dv_devx_obj_query_async(struct mlx5dv_devx_obj *obj, const void *in,
			    size_t inlen, size_t outlen, uint64_t wr_id,
			    struct mlx5dv_devx_cmd_comp *cmd_comp)
{
	struct devx_cmd_comp *cc;
	struct mlx5dv_devx_async_cmd_hdr *rec;
	ssize_t n;
	int ret;

	if (!obj || !cmd_comp)
		return errno = EINVAL;
	if (outlen > UINT16_MAX)	/* the kernel's out length is a u16 */
		return errno = EINVAL;
	cc = SMX_CONTAINER_OF(cmd_comp, struct devx_cmd_comp, dv);
	rec = calloc(1, sizeof(*rec) + (outlen ? outlen : 1));
	if (!rec)
		return errno = ENOMEM;
	rec->wr_id = wr_id;
	ret = obj_cmd(obj->res.ctx, &obj->enc_id, 1, in, inlen, rec->out_data,
		      outlen, false);
	/* A command the device answered (even with a failure) is completed
	 * through the channel; refusals before the device are the call's. */
	if (ret && ret != EREMOTEIO) {
		free(rec);
		return errno = ret;
	}
	n = send(cc->wfd, rec, sizeof(*rec) + outlen, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(rec);
	if (n < 0)
		return errno = (errno == EWOULDBLOCK ? EAGAIN : errno);
	return 0;
}

SMX_EXPORT int
mlx5dv_devx_get_async_cmd_comp(struct mlx5dv_devx_cmd_comp *cmd_comp,
			       struct mlx5dv_devx_async_cmd_hdr *cmd_resp,
			       size_t cmd_resp_len)
{
	ssize_t n;

	if (!cmd_comp || !cmd_resp)
		return errno = EINVAL;
	/* The whole answer or nothing: a short buffer leaves it queued. */
	n = recv(cmd_comp->fd, cmd_resp, 0, MSG_PEEK | MSG_TRUNC);
	if (n < 0)
		return errno;
	if ((size_t)n > cmd_resp_len)
		return errno = ENOSPC;
	n = recv(cmd_comp->fd, cmd_resp, cmd_resp_len, 0);
	if (n < 0)
		return errno;
	if (n == 0)
		return errno = EIO;	/* channel torn down */
	return 0;
}

/* ------------------------------------------------------------------ */
/* Events                                                             */
/* ------------------------------------------------------------------ */

SMX_EXPORT struct mlx5dv_devx_event_channel *
mlx5dv_devx_create_event_channel(struct ibv_context *context,
				 enum mlx5dv_devx_create_event_channel_flags flags)
{
	struct devx_evch *ch;
	int ret;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	if (flags & ~MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ret = seqpacket_pair(&ch->dv.fd, &ch->wfd);
	if (ret) {
		free(ch);
		errno = ret;
		return NULL;
	}
	ch->omit_data = flags & MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA;
	res_add(&ch->res, to_mctx(context), DX_EVCH);
	atomic_fetch_add(&devx_nevch, 1);
	return &ch->dv;
}

static void evch_free(struct devx_evch *ch)
{
	struct devx_sub *s;

	pthread_mutex_lock(&devx_lock);
	res_del_locked(&ch->res);
	while ((s = ch->subs)) {
		ch->subs = s->next;
		if (s->eventfd >= 0)
			close(s->eventfd);
		free(s);
	}
	pthread_mutex_unlock(&devx_lock);
	atomic_fetch_sub(&devx_nevch, 1);
	close(ch->wfd);
	close(ch->dv.fd);
	free(ch);
}

SMX_EXPORT void mlx5dv_devx_destroy_event_channel(
	struct mlx5dv_devx_event_channel *event_channel)
{
	if (event_channel)
		evch_free(SMX_CONTAINER_OF(event_channel, struct devx_evch, dv));
}

/* Subscriptions on @obj die with it (kernel devx_cleanup_subscription). */
static void subs_drop_obj(struct mlx5dv_devx_obj *obj)
{
	struct devx_res *r;

	pthread_mutex_lock(&devx_lock);
	for (r = devx_all.next; r != &devx_all; r = r->next) {
		struct devx_evch *ch;
		struct devx_sub **pp;

		if (r->kind != DX_EVCH)
			continue;
		ch = RES_OF(r, struct devx_evch);
		for (pp = &ch->subs; *pp;) {
			struct devx_sub *s = *pp;

			if (s->obj == obj) {
				*pp = s->next;
				if (s->eventfd >= 0)
					close(s->eventfd);
				free(s);
			} else {
				pp = &s->next;
			}
		}
	}
	pthread_mutex_unlock(&devx_lock);
}

/* Events a subscription may name (legacy lists: the device has no event_cap). */
static bool event_valid(uint16_t ev, bool affiliated)
{
	if (!affiliated)
		return ev == DX_EV_PORT_CHANGE;
	switch (ev) {
	case DX_EV_COMP:
	case DX_EV_PATH_MIG:
	case DX_EV_COMM_EST:
	case DX_EV_SQ_DRAINED:
	case DX_EV_CQ_ERROR:
	case DX_EV_WQ_CATAS_ERROR:
	case DX_EV_PATH_MIG_FAILED:
	case DX_EV_WQ_INVAL_REQ_ERROR:
	case DX_EV_WQ_ACCESS_ERROR:
	case DX_EV_SRQ_CATAS_ERROR:
	case DX_EV_SRQ_LAST_WQE:
	case DX_EV_SRQ_RQ_LIMIT:
	case DX_EV_XRQ_ERROR:
	case DX_EV_DCT_DRAINED:
	case DX_EV_DCT_KEY_VIOLATION:
		return true;
	default:
		return false;
	}
}

/* True when @fd is an eventfd (what the kernel's eventfd_ctx_fdget accepts). */
static int check_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return EBADF;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;	/* no /proc: trust the caller */
	link[n] = 0;
	return strcmp(link, "anon_inode:[eventfd]") ? EINVAL : 0;
}

static int subscribe(struct mlx5dv_devx_event_channel *event_channel, int fd,
		     struct mlx5dv_devx_obj *obj, uint16_t nevents,
		     const uint16_t *events, uint64_t cookie)
{
	struct devx_sub *list = NULL, *s;
	struct devx_evch *ch;
	unsigned int i;
	int ret;

	if (!event_channel)
		return EINVAL;
	ch = SMX_CONTAINER_OF(event_channel, struct devx_evch, dv);
	if (!ctx_has_devx(ch->res.ctx))
		return EINVAL;
	if (!nevents || nevents > DX_MAX_EVENTS || !events)
		return EINVAL;
	for (i = 0; i < nevents; i++)
		if (!event_valid(events[i], obj != NULL))
			return EINVAL;
	if (fd >= 0) {
		ret = check_eventfd(fd);
		if (ret)
			return ret;
	}
	for (i = 0; i < nevents; i++) {
		s = calloc(1, sizeof(*s));
		if (!s)
			goto nomem;
		s->event = events[i];
		s->obj = obj;
		s->cookie = cookie;
		s->eventfd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (fd >= 0 && s->eventfd < 0) {
			free(s);
			goto nomem;
		}
		s->next = list;
		list = s;
	}
	pthread_mutex_lock(&devx_lock);
	while ((s = list)) {
		list = s->next;
		s->next = ch->subs;
		ch->subs = s;
	}
	pthread_mutex_unlock(&devx_lock);
	return 0;

nomem:
	while ((s = list)) {
		list = s->next;
		if (s->eventfd >= 0)
			close(s->eventfd);
		free(s);
	}
	return ENOMEM;
}

SMX_EXPORT int mlx5dv_devx_subscribe_devx_event(
	struct mlx5dv_devx_event_channel *event_channel,
	struct mlx5dv_devx_obj *obj, uint16_t events_sz,
	uint16_t events_num[], uint64_t cookie)
{
	int ret;

	/* events_sz is the array's size in bytes. */
	if (events_sz % sizeof(uint16_t))
		return errno = EINVAL;
	ret = subscribe(event_channel, -1, obj, events_sz / sizeof(uint16_t),
			events_num, cookie);
	if (ret)
		errno = ret;
	return ret;
}

SMX_EXPORT int mlx5dv_devx_subscribe_devx_event_fd(
	struct mlx5dv_devx_event_channel *event_channel, int fd,
	struct mlx5dv_devx_obj *obj, uint16_t event_num)
{
	int ret;

	if (fd < 0)
		return errno = EBADF;
	ret = subscribe(event_channel, fd, obj, 1, &event_num, 0);
	if (ret)
		errno = ret;
	return ret;
}

/* Returns bytes read, or -1 with errno (mlx5dv_devx_get_event(3)). */
SMX_EXPORT ssize_t
mlx5dv_devx_get_event(struct mlx5dv_devx_event_channel *event_channel,
		      struct mlx5dv_devx_async_event_hdr *event_data,
		      size_t event_resp_len)
{
	struct devx_evch *ch;
	ssize_t n;

	if (!event_channel || !event_data) {
		errno = EINVAL;
		return -1;
	}
	ch = SMX_CONTAINER_OF(event_channel, struct devx_evch, dv);
	n = recv(event_channel->fd, event_data, 0, MSG_PEEK | MSG_TRUNC);
	if (n < 0)
		return -1;
	if ((size_t)n > event_resp_len) {
		errno = EINVAL;
		return -1;
	}
	n = recv(event_channel->fd, event_data, event_resp_len, 0);
	if (n < 0)
		return -1;
	if (n == 0) {
		errno = EIO;
		return -1;
	}
	if (ch->omit_data) {
		/* The notice is read: the subscription may post again. */
		struct devx_sub *s;

		pthread_mutex_lock(&devx_lock);
		for (s = ch->subs; s; s = s->next)
			if (s->cookie == event_data->cookie)
				s->pending = false;
		pthread_mutex_unlock(&devx_lock);
	}
	return n;
}

/* Which object an EQE is about: 0 = none (unaffiliated). */
static bool eqe_target(const uint8_t *eqe, uint8_t type, uint32_t *num,
		       bool *is_cq)
{
	uint32_t v;

	*is_cq = false;
	switch (type) {
	case DX_EV_COMP:
	case DX_EV_CQ_ERROR:
		/* cqn: completion EQE at +0x38, CQ error at +0x20 */
		memcpy(&v, eqe + (type == DX_EV_COMP ? 0x38 : 0x20), 4);
		*num = be32toh(v) & 0xffffff;
		*is_cq = true;
		return true;
	case DX_EV_PORT_CHANGE:
		return false;
	default:
		memcpy(&v, eqe + 0x38, 4);
		*num = be32toh(v) & 0xffffff;
		return true;
	}
}

int mlx5_devx_event(const void *eqe_v)
{
	const uint8_t *eqe = eqe_v;
	uint8_t type = eqe[1];
	struct devx_res *r;
	uint32_t num = 0;
	bool affiliated, is_cq;
	int delivered = 0;

	if (!atomic_load(&devx_nevch))
		return 0;
	affiliated = eqe_target(eqe, type, &num, &is_cq);
	pthread_mutex_lock(&devx_lock);
	for (r = devx_all.next; r != &devx_all; r = r->next) {
		struct devx_evch *ch;
		struct devx_sub *s;

		if (r->kind != DX_EVCH)
			continue;
		ch = RES_OF(r, struct devx_evch);
		for (s = ch->subs; s; s = s->next) {
			uint8_t rec[sizeof(struct mlx5dv_devx_async_event_hdr) +
				    DX_EQE_BYTES];
			struct mlx5dv_devx_async_event_hdr *h = (void *)rec;
			uint16_t creator;

			if (s->event != type || (s->obj != NULL) != affiliated)
				continue;
			if (s->obj) {
				creator = (uint16_t)(s->obj->enc_id >> 32);
				if (s->obj->obj_id != num ||
				    (creator == MLX5_CMD_OP_CREATE_CQ) != is_cq)
					continue;
			}
			delivered++;
			if (s->eventfd >= 0) {
				uint64_t one = 1;

				if (write(s->eventfd, &one, sizeof(one)) < 0)
					smx_dbg("devx: event fd write: %s", strerror(errno));
				continue;
			}
			if (ch->omit_data) {
				if (s->pending)
					continue;
				s->pending = true;
				send(ch->wfd, &s->cookie, sizeof(s->cookie),
				     MSG_DONTWAIT | MSG_NOSIGNAL);
				continue;
			}
			h->cookie = s->cookie;
			memcpy(h->out_data, eqe, DX_EQE_BYTES);
			send(ch->wfd, rec, sizeof(rec), MSG_DONTWAIT | MSG_NOSIGNAL);
		}
	}
	pthread_mutex_unlock(&devx_lock);
	return delivered;
}

/* ------------------------------------------------------------------ */
/* UMEM                                                               */
/* ------------------------------------------------------------------ */

/* Every page of [addr, addr + len) mapped and readable (ib_umem_get's pin). */
static bool range_readable(uintptr_t start, uintptr_t end)
{
	struct iovec remote[64], local;
	uint8_t sink[64];
	uintptr_t p = start;

	while (p < end) {
		unsigned int k = 0;
		ssize_t r;

		while (k < 64 && p < end) {
			remote[k].iov_base = (void *)p;
			remote[k].iov_len = 1;
			k++;
			p += 4096;
		}
		local.iov_base = sink;
		local.iov_len = k;
		r = process_vm_readv(getpid(), &local, 1, remote, k, 0);
		if (r < 0 && (errno == ENOSYS || errno == EPERM)) {
			/* Fall back to the mapping check alone. */
			size_t n = (end - start) / 4096;
			unsigned char *vec = malloc(n ? n : 1);
			bool ok;

			if (!vec)
				return false;
			ok = mincore((void *)start, end - start, vec) == 0;
			free(vec);
			return ok;
		}
		if (r != (ssize_t)k)
			return false;
	}
	return true;
}

/* Page size for the umem (kernel devx_umem_find_best_pgsize()), 0 if none. */
static uint64_t umem_page_size(uintptr_t addr, size_t size, uint64_t bitmap)
{
	unsigned int top = 12, sh;

	while (top < 63 && (1ull << top) < size)
		top++;
	for (sh = top; sh >= 12; sh--) {
		uint64_t ps = 1ull << sh;

		if (!(bitmap & ps))
			continue;
		if (sh == 12 || ((addr & (ps - 1)) == 0 && size % ps == 0))
			return ps;
	}
	return 0;
}

static struct mlx5dv_devx_umem *umem_reg(struct ibv_context *context,
					 struct mlx5dv_devx_umem_in *uin)
{
	const int allowed = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	uint32_t out[DEVX_ST_SZ_DW(create_umem_out)] = {};
	struct mlx5_context *ctx;
	struct devx_umem *um;
	uintptr_t addr, first, end;
	uint64_t ps, npages, i;
	size_t inlen;
	uint32_t *in;
	void *umc;
	int ret;

	if (!context || !uin) {
		errno = EINVAL;
		return NULL;
	}
	ctx = to_mctx(context);
	if (uin->comp_mask & ~(uint64_t)MLX5DV_UMEM_MASK_DMABUF) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (uin->comp_mask & MLX5DV_UMEM_MASK_DMABUF) {
		/* No dma-buf exporter can reach a software device. */
		errno = uin->dmabuf_fd == -1 ? EBADF : EOPNOTSUPP;
		return NULL;
	}
	if (!ctx_has_devx(ctx)) {
		errno = EINVAL;
		return NULL;
	}
	if ((uin->access & ~allowed) ||
	    ((uin->access & IBV_ACCESS_REMOTE_WRITE) &&
	     !(uin->access & IBV_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	addr = (uintptr_t)uin->addr;
	if (!uin->size || addr + uin->size < addr) {
		errno = EINVAL;
		return NULL;
	}
	first = addr & ~(uintptr_t)4095;
	end = (addr + uin->size + 4095) & ~(uintptr_t)4095;
	if (!end || !range_readable(first, end)) {
		errno = EFAULT;
		return NULL;
	}
	ps = umem_page_size(addr, uin->size, uin->pgsz_bitmap);
	if (!ps) {
		errno = EINVAL;
		return NULL;
	}
	first = addr & ~(uintptr_t)(ps - 1);
	npages = (addr + uin->size - first + ps - 1) / ps;
	inlen = DEVX_ST_SZ_BYTES(create_umem_in) + npages * DEVX_ST_SZ_BYTES(mtt);
	in = calloc(1, inlen);
	um = calloc(1, sizeof(*um));
	if (!in || !um) {
		free(in);
		free(um);
		errno = ENOMEM;
		return NULL;
	}
	DEVX_SET(create_umem_in, in, opcode, MLX5_CMD_OP_CREATE_UMEM);
	umc = DEVX_ADDR_OF(create_umem_in, in, umem);
	DEVX_SET64(umem, umc, num_of_mtt, npages);
	DEVX_SET(umem, umc, log_page_size, __builtin_ctzll(ps) - 12);
	DEVX_SET(umem, umc, page_offset, addr - first);
	for (i = 0; i < npages; i++) {
		uint64_t pa = first + i * ps;
		uint8_t *m = (uint8_t *)umc + DEVX_BYTE_OFF(umem, mtt) +
			     i * DEVX_ST_SZ_BYTES(mtt);

		DEVX_SET(mtt, m, ptag_63_32, pa >> 32);
		DEVX_SET(mtt, m, ptag_31_8, (pa >> 8) & 0xffffff);
		DEVX_SET(mtt, m, wr_en, !!(uin->access & IBV_ACCESS_LOCAL_WRITE));
		DEVX_SET(mtt, m, rd_en, 1);
	}
	ret = mlx5_cmd_exec(ctx, in, inlen, out, sizeof(out));
	free(in);
	if (ret) {
		free(um);
		errno = ret;
		return NULL;
	}
	um->dv.umem_id = DEVX_GET(create_umem_out, out, umem_id);
	um->addr = uin->addr;
	um->size = uin->size;
	dw_set(um->din, 0, 32, (uint32_t)MLX5_CMD_OP_DESTROY_UMEM << 16 |
				   ctx->uctx->uid);
	dw_set(um->din, 2, 32, um->dv.umem_id);
	res_add(&um->res, ctx, DX_UMEM);
	return &um->dv;
}

SMX_EXPORT struct mlx5dv_devx_umem *
mlx5dv_devx_umem_reg(struct ibv_context *ctx, void *addr, size_t size,
		     uint32_t access)
{
	struct mlx5dv_devx_umem_in uin = {
		.addr = addr,
		.size = size,
		.access = access,
		.pgsz_bitmap = ~(uint64_t)4095,	/* any page size from 4 KiB */
	};

	return umem_reg(ctx, &uin);
}

SMX_EXPORT struct mlx5dv_devx_umem *
mlx5dv_devx_umem_reg_ex(struct ibv_context *ctx,
			struct mlx5dv_devx_umem_in *umem_in)
{
	return umem_reg(ctx, umem_in);
}

static int umem_dereg(struct devx_umem *um)
{
	int ret = dx_exec_destroy(um->res.ctx, um->din, 16);

	if (ret)
		return ret;
	res_del(&um->res);
	free(um);
	return 0;
}

SMX_EXPORT int mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *umem)
{
	int ret;

	if (!umem)
		return errno = EINVAL;
	ret = umem_dereg(SMX_CONTAINER_OF(umem, struct devx_umem, dv));
	if (ret)
		errno = ret;
	return ret;
}

/* ------------------------------------------------------------------ */
/* UAR                                                                */
/* ------------------------------------------------------------------ */

static int uar_dealloc(struct mlx5_context *ctx, uint32_t page)
{
	uint32_t in[DEVX_ST_SZ_DW(dealloc_uar_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(mbox_out)] = {};

	DEVX_SET(dealloc_uar_in, in, opcode, MLX5_CMD_OP_DEALLOC_UAR);
	DEVX_SET(dealloc_uar_in, in, uar, page);
	return mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
}

static struct devx_uar *uar_alloc(struct mlx5_context *ctx, bool nc)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_uar_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_uar_out)] = {};
	struct devx_uar *u;
	uint32_t page;
	void *map;
	int ret;

	u = calloc(1, sizeof(*u));
	if (!u) {
		errno = ENOMEM;
		return NULL;
	}
	DEVX_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	ret = mlx5_cmd_exec(ctx, in, sizeof(in), out, sizeof(out));
	if (ret) {
		free(u);
		errno = ret;
		return NULL;
	}
	page = DEVX_GET(alloc_uar_out, out, uar);
	map = smx_dev_bar(ctx->hca, (uint64_t)page * MLX5_ADAPTER_PAGE_SIZE,
			  MLX5_ADAPTER_PAGE_SIZE);
	if (!map || !page) {
		uar_dealloc(ctx, page);
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	u->dv.page_id = page;
	u->dv.base_addr = map;
	u->dv.reg_addr = (uint8_t *)map + DX_BF_OFFSET;
	/* The page's offset in the device BAR, where an mmap of it would go. */
	u->dv.mmap_off = (off_t)page * MLX5_ADAPTER_PAGE_SIZE;
	u->dv.comp_mask = 0;
	u->nc_singleton = nc;
	res_add(&u->res, ctx, DX_UAR);
	return u;
}

SMX_EXPORT struct mlx5dv_devx_uar *
mlx5dv_devx_alloc_uar(struct ibv_context *context, uint32_t flags)
{
	static pthread_mutex_t nc_lock = PTHREAD_MUTEX_INITIALIZER;
	struct mlx5_context *ctx;
	struct devx_uar *u = NULL;
	struct devx_res *r;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	if (flags & ~(uint32_t)MLX5DV_UAR_ALLOC_TYPE_NC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = to_mctx(context);
	if (!(flags & MLX5DV_UAR_ALLOC_TYPE_NC)) {
		u = uar_alloc(ctx, false);
		return u ? &u->dv : NULL;
	}
	/* Non-cached: one UAR per context, handed out to every caller. */
	pthread_mutex_lock(&nc_lock);
	pthread_mutex_lock(&devx_lock);
	for (r = devx_all.next; r != &devx_all; r = r->next)
		if (r->kind == DX_UAR && r->ctx == ctx &&
		    RES_OF(r, struct devx_uar)->nc_singleton) {
			u = RES_OF(r, struct devx_uar);
			break;
		}
	pthread_mutex_unlock(&devx_lock);
	if (!u)
		u = uar_alloc(ctx, true);
	pthread_mutex_unlock(&nc_lock);
	return u ? &u->dv : NULL;
}

static int uar_free(struct devx_uar *u)
{
	int ret = uar_dealloc(u->res.ctx, u->dv.page_id);

	if (ret)
		return ret;
	res_del(&u->res);
	free(u);
	return 0;
}

SMX_EXPORT void mlx5dv_devx_free_uar(struct mlx5dv_devx_uar *devx_uar)
{
	struct devx_uar *u;

	if (!devx_uar)
		return;
	u = SMX_CONTAINER_OF(devx_uar, struct devx_uar, dv);
	if (u->nc_singleton)
		return;		/* lives as long as the context */
	/* A UAR still named by a queue stays until context close. */
	if (uar_free(u))
		smx_dbg("devx: UAR page %u still in use; freed at context close",
			devx_uar->page_id);
}

/* ------------------------------------------------------------------ */
/* EQN, EQ, MSI vectors                                               */
/* ------------------------------------------------------------------ */

SMX_EXPORT int mlx5dv_devx_query_eqn(struct ibv_context *context,
				     uint32_t vector, uint32_t *eqn)
{
	struct mlx5_context *ctx;
	int ret;

	if (!context || !eqn)
		return errno = EINVAL;
	ctx = to_mctx(context);
	/* mlx5_vector2eqn(): a vector the device does not have is ENOENT. */
	if (vector >= (uint32_t)context->num_comp_vectors)
		return errno = ENOENT;
	ret = mlx5_comp_eqn(ctx, (int)vector, eqn);
	if (ret)
		errno = ret;
	return ret;
}

static void msi_irq(void *arg, uint32_t vector)
{
	struct devx_msi *m = arg;
	uint64_t one = 1;

	(void)vector;
	if (write(m->dv.fd, &one, sizeof(one)) < 0)
		return;
}

SMX_EXPORT struct mlx5dv_devx_msi_vector *
mlx5dv_devx_alloc_msi_vector(struct ibv_context *ibctx)
{
	struct mlx5_context *ctx;
	struct devx_msi *m;
	int v;

	if (!ibctx) {
		errno = EINVAL;
		return NULL;
	}
	ctx = to_mctx(ibctx);
	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->dv.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (m->dv.fd < 0) {
		free(m);
		return NULL;
	}
	m->hca = ctx->hca;
	/* The provider's EQs take the low vectors; hand out from the top. */
	for (v = DX_NR_VECTORS - 1; v > 0; v--)
		if (!smx_dev_irq_register(ctx->hca, (uint32_t)v, msi_irq, m))
			break;
	if (v == 0) {
		close(m->dv.fd);
		free(m);
		errno = ENOSPC;
		return NULL;
	}
	m->dv.vector = v;
	res_add(&m->res, ctx, DX_MSI);
	return &m->dv;
}

static void msi_free(struct devx_msi *m)
{
	smx_dev_irq_unregister(m->hca, (uint32_t)m->dv.vector);
	res_del(&m->res);
	close(m->dv.fd);
	free(m);
}

SMX_EXPORT int
mlx5dv_devx_free_msi_vector(struct mlx5dv_devx_msi_vector *msi)
{
	if (!msi)
		return errno = EINVAL;
	msi_free(SMX_CONTAINER_OF(msi, struct devx_msi, dv));
	return 0;
}

SMX_EXPORT struct mlx5dv_devx_eq *
mlx5dv_devx_create_eq(struct ibv_context *ibctx, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	struct mlx5_context *ctx;
	struct devx_eq *eq;
	size_t base, npages, len, i;
	unsigned int log_size;
	uint8_t *cin;
	void *eqc;
	int ret, uid;

	if (!ibctx) {
		errno = EINVAL;
		return NULL;
	}
	ctx = to_mctx(ibctx);
	ret = check_mboxes(in, inlen, out, outlen);
	if (!ret && (inlen < DEVX_ST_SZ_BYTES(create_eq_in) ||
		     mbox_opcode(in) != MLX5_CMD_OP_CREATE_EQ))
		ret = EINVAL;
	if (ret) {
		errno = ret;
		return NULL;
	}
	uid = ctx_uid(ctx, in);
	if (uid < 0) {
		errno = -uid;
		return NULL;
	}
	eqc = DEVX_ADDR_OF(create_eq_in, in, eq_context_entry);
	log_size = DEVX_GET(eqc, eqc, log_eq_size);
	if (log_size > 22) {
		errno = EINVAL;
		return NULL;
	}
	eq = calloc(1, sizeof(*eq));
	if (!eq) {
		errno = ENOMEM;
		return NULL;
	}
	len = (size_t)DX_EQE_BYTES << log_size;
	ret = mlx5_buf_alloc(&eq->buf, len);
	if (ret) {
		free(eq);
		errno = ret;
		return NULL;
	}
	/* EQEs start owned by the device (owner bit set). */
	for (i = 0; i < ((size_t)1 << log_size); i++)
		((uint8_t *)eq->buf.addr)[i * DX_EQE_BYTES + 63] = 1;
	/* The driver's part of the mailbox: page size and the PAS list. */
	npages = mlx5_buf_npages(&eq->buf);
	base = DEVX_ST_SZ_BYTES(create_eq_in);
	cin = calloc(1, base + npages * 8);
	if (!cin) {
		mlx5_buf_free(&eq->buf);
		free(eq);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(cin, in, base);
	eqc = DEVX_ADDR_OF(create_eq_in, cin, eq_context_entry);
	DEVX_SET(eqc, eqc, log_page_size, 0);
	DEVX_SET(eqc, eqc, page_offset, 0);
	mlx5_buf_fill_pas(&eq->buf, (__be64 *)(cin + base));
	ret = dx_exec(ctx, (uint16_t)uid, cin, base + npages * 8, out, outlen,
		      false, NULL);
	free(cin);
	if (ret) {
		mlx5_buf_free(&eq->buf);
		free(eq);
		errno = ret;
		return NULL;
	}
	eq->eqn = DEVX_GET(create_eq_out, out, eq_number);
	eq->dv.vaddr = eq->buf.addr;
	res_add(&eq->res, ctx, DX_EQ);
	return &eq->dv;
}

static int eq_destroy(struct devx_eq *eq)
{
	uint32_t din[DX_DESTROY_MAX_DW] = {};
	int ret;

	dw_set(din, 0, 32, (uint32_t)MLX5_CMD_OP_DESTROY_EQ << 16 |
			       (ctx_has_devx(eq->res.ctx) ? eq->res.ctx->uctx->uid : 0));
	DEVX_SET(destroy_eq_in, din, eq_number, eq->eqn);
	ret = dx_exec_destroy(eq->res.ctx, din, DEVX_ST_SZ_BYTES(destroy_eq_in));
	if (ret)
		return ret;
	res_del(&eq->res);
	mlx5_buf_free(&eq->buf);
	free(eq);
	return 0;
}

SMX_EXPORT int mlx5dv_devx_destroy_eq(struct mlx5dv_devx_eq *dveq)
{
	int ret;

	if (!dveq)
		return errno = EINVAL;
	ret = eq_destroy(SMX_CONTAINER_OF(dveq, struct devx_eq, dv));
	if (ret)
		errno = ret;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Context close                                                      */
/* ------------------------------------------------------------------ */

static int res_destroy(struct devx_res *r)
{
	switch (r->kind) {
	case DX_OBJ:
		return obj_destroy(RES_OF(r, struct mlx5dv_devx_obj));
	case DX_UMEM:
		return umem_dereg(RES_OF(r, struct devx_umem));
	case DX_UAR:
		return uar_free(RES_OF(r, struct devx_uar));
	case DX_EQ:
		return eq_destroy(RES_OF(r, struct devx_eq));
	case DX_MSI:
		msi_free(RES_OF(r, struct devx_msi));
		return 0;
	case DX_CMD_COMP:
		cmd_comp_free(RES_OF(r, struct devx_cmd_comp));
		return 0;
	case DX_EVCH:
		evch_free(RES_OF(r, struct devx_evch));
		return 0;
	}
	return EINVAL;
}

/* Newest first; what the device refuses waits for the next pass. */
void mlx5_devx_context_cleanup(struct mlx5_context *ctx)
{
	bool progress = true, left = true;

	while (progress && left) {
		struct devx_res *r;

		progress = left = false;
		for (;;) {
			struct devx_res *victim = NULL;

			pthread_mutex_lock(&devx_lock);
			for (r = devx_all.prev; r != &devx_all; r = r->prev)
				if (r->ctx == ctx && !r->parked) {
					victim = r;
					break;
				}
			pthread_mutex_unlock(&devx_lock);
			if (!victim)
				break;
			if (res_destroy(victim) == 0) {
				progress = true;
				continue;
			}
			left = true;
			pthread_mutex_lock(&devx_lock);
			victim->parked = true;
			pthread_mutex_unlock(&devx_lock);
		}
		pthread_mutex_lock(&devx_lock);
		for (r = devx_all.next; r != &devx_all; r = r->next)
			if (r->ctx == ctx)
				r->parked = false;
		pthread_mutex_unlock(&devx_lock);
	}
	if (!left)
		return;
	/* The device still holds them (references from outside DEVX): drop
	 * our side so the context can go. */
	for (;;) {
		struct devx_res *r, *victim = NULL;

		pthread_mutex_lock(&devx_lock);
		for (r = devx_all.prev; r != &devx_all; r = r->prev)
			if (r->ctx == ctx) {
				victim = r;
				res_del_locked(r);
				break;
			}
		pthread_mutex_unlock(&devx_lock);
		if (!victim)
			break;
		smx_dbg("devx: context close leaves a kind-%d resource in the device",
			victim->kind);
		switch (victim->kind) {
		case DX_OBJ:
			free(RES_OF(victim, struct mlx5dv_devx_obj));
			break;
		case DX_UMEM:
			free(RES_OF(victim, struct devx_umem));
			break;
		case DX_UAR:
			free(RES_OF(victim, struct devx_uar));
			break;
		case DX_EQ:
			mlx5_buf_free(&RES_OF(victim, struct devx_eq)->buf);
			free(RES_OF(victim, struct devx_eq));
			break;
		default:
			break;
		}
	}
}

/* For the dv flow API: the opcode that created @obj and its number (a TIR
 * number, a flow table id, a flow counter id ...); false if @obj is NULL. */
bool mlx5_devx_obj_ident(const struct mlx5dv_devx_obj *obj, uint16_t *creator, uint32_t *id)
{
	if (!obj)
		return false;
	*creator = (uint16_t)(obj->enc_id >> 32);
	*id = obj->obj_id;
	return true;
}
