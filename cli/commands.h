/* commands.h - one function per CLI subcommand, each in its own file.
 * argv[0] is the subcommand name. Return value is the process exit code. */
#ifndef PD_CLI_COMMANDS_H
#define PD_CLI_COMMANDS_H
int pd_cli_check(int argc, char **argv);      /* check.c */
int pd_cli_mask(int argc, char **argv);       /* mask.c */
int pd_cli_maskbench(int argc, char **argv);  /* maskbench.c */
int pd_cli_encode(int argc, char **argv);     /* encode.c */
int pd_cli_generate(int argc, char **argv);   /* generate.c */
int pd_cli_demo(int argc, char **argv);       /* demo.c */
int pd_cli_kernels_selftest(int argc, char **argv); /* kernels.c */
int pd_cli_bench(int argc, char **argv);      /* kernels.c: `bench kernels` */
#endif
