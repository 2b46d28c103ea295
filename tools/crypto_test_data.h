/* SPDX-License-Identifier: MIT */
/* softmlx5 crypto-test-data (tools/crypto_test_data.c). */
#ifndef SMX_TOOLS_CRYPTO_TEST_DATA_H
#define SMX_TOOLS_CRYPTO_TEST_DATA_H

/* Prints rdma-core's test_mlx5_crypto data file for the configured device;
 * @argc/@argv: the arguments after the subcommand. Exit status. */
int cmd_crypto_test_data(int argc, char **argv);

#endif
