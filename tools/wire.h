/* SPDX-License-Identifier: MIT */
/* softmlx5 wire (tools/wire.c). */
#ifndef SMX_TOOLS_WIRE_H
#define SMX_TOOLS_WIRE_H

/* The far end of the port's cable: sends frames into the port, captures
 * what comes out; @argc/@argv: the arguments after the subcommand. Exit
 * status (0, 1 for fewer frames than --expect or a failure, 2 usage). */
int cmd_wire(int argc, char **argv);

#endif
