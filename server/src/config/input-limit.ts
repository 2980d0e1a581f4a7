/**
 * The default of `server.max_input_size_mb` (config.ts): the largest analysis input, in MB. Its
 * own module, so the command's checks-only local mode (cli/in-process.ts), which takes no
 * server setting from the environment, applies the same limit without loading the configuration.
 */
export const DEFAULT_MAX_INPUT_SIZE_MB = 10;
