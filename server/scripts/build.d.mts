/** Types of build.mjs (the compiled `npm start` build), for TypeScript importers (the benchmarks). */
export declare const SERVER_DIST: string;
export declare const SERVER_MAIN: string;
export declare const CLI_DIST: string;
export declare const CLI_MAIN: string;
export declare function isStale(main?: string): boolean;
export declare function buildCli(): Promise<number>;
export declare function buildServer(): Promise<number>;
export declare function buildBundle(options: { outdir: string; main: string }): Promise<number>;
