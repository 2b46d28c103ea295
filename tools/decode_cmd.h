/* SPDX-License-Identifier: MIT */
/* softmlx5 decode (tools/decode.c). */
#ifndef SMX_TOOLS_DECODE_CMD_H
#define SMX_TOOLS_DECODE_CMD_H

/* Decodes a hex dump of a WQE, CQE, command mailbox or packet given after
 * the kind or on stdin; @argc/@argv: the arguments after the subcommand.
 * Exit status 0, 1 for input that is not hex, 2 for a usage error. */
int cmd_decode(int argc, char **argv);

#endif
