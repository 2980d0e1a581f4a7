/** Types of ensure-build.mjs (the dashboard build check `npm start` runs; see that file). */
export declare const WEB_DIR: string;
export declare function dashboardIsStale(web?: string): boolean;
export declare function ensureDashboardBuild(options?: { web?: string; build?: (web: string) => number }): number;
