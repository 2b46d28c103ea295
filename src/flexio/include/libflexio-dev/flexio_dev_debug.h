/* SPDX-License-Identifier: MIT */
/*
 * softmlx5 FlexIO: simulator-only debug prints of the SDK. On softmlx5 they go
 * to the host's stderr.
 */
#ifndef _FLEXIO_DEV_DEBUG_H_
#define _FLEXIO_DEV_DEBUG_H_

#include <stdint.h>

void print_sim_str(const char *str, int len);
void print_sim_hex(uint64_t val, int len);
void print_sim_int(int64_t val, int len);
void print_sim_putc(char c);
void sim_trace(uint64_t text, uint64_t val);
#define SIM_TRACE(text, val) sim_trace((uint64_t)(text), (uint64_t)(val))

#endif
