/* SPDX-License-Identifier: MIT */
/* softmlx5 status (tools/status.c). */
#ifndef SMX_TOOLS_STATUS_CMD_H
#define SMX_TOOLS_STATUS_CMD_H

int cmd_status(int argc, char **argv);

#endif
