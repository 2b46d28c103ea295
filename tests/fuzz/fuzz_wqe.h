/* SPDX-License-Identifier: MIT */
/*
 * The WQE fuzzer's input convention (fuzz_wqe.c, gen_wqe_corpus.c).
 *
 * The input is the send queue's contents from WQEBB 0: up to
 * FZW_MAX_BBS 64-byte blocks, rung as one doorbell. A fresh device per
 * input holds a loopback RC QP in RTS, one MR over a guarded 8 KiB buffer,
 * one free UMR-enabled signature- and crypto-capable KLM mkey (8 entries,
 * room for both BSFs), two PSVs and one more free UMR-enabled KLM mkey
 * without either (8 entries, for plain indirect layouts),
 * with four receives posted. Numbers the fuzzer cannot know are tags the
 * harness replaces before ringing:
 *   big-endian 64-bit word 0xA5A5A5A4_xxxxxxxx -> buffer address + x % 8 KiB
 *   big-endian 32-bit word 0xA5A5A5F0 + n       -> n = 0 MR key, 1 signature
 *                                                  mkey, 2/3 PSV, 4 PD, 5 QPN,
 *                                                  6 the MR key at the QP's
 *                                                  responder (an rkey), 7 a
 *                                                  plain KLM mkey
 *   big-endian 32-bit word 0xA6xxxxxx            -> qpn << 8 | (x & 0x3f)
 *                                                  (a control segment's qpn_ds)
 * Everything else is left as the fuzzer made it.
 *
 * The responder is the QP itself (loopback), whose rkey is the MR key:
 * tags 0 and 6 are one number. The differential test
 * (tests/unit/test_diff_wqe.c) also runs inputs with the QP connected to a
 * twin in another process -- the same objects, the buffer at the same
 * address -- where tag 6 is the twin's MR key, so that RDMA reaches the
 * inter-process paths (packets, direct placement, the fast lane).
 * The device side of this convention is fuzz_wqe_dev.h, shared by both.
 */
#ifndef SMX_FUZZ_WQE_H
#define SMX_FUZZ_WQE_H

#define FZW_MAX_BBS 64u
#define FZW_BUF 8192u
#define FZW_TAG64 0xA5A5A5A4u
#define FZW_TAG32 0xA5A5A5F0u
#define FZW_TAG_QPN_DS 0xA6u

enum { FZW_MR, FZW_SIGKEY, FZW_PSV0, FZW_PSV1, FZW_PD, FZW_QPN, FZW_RMR,
       FZW_KLM, FZW_NTAGS };

#endif
