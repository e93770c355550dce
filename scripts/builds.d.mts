// Types of scripts/builds.mjs for the TypeScript that imports it (the browser tests' global setup).
export declare const SERVER_DIST: string;
export declare const WEB_DIST: string;
export declare const WEB_TEST_DIST: string;
export declare const SERVER_ENV: { MALLOC_ARENA_MAX: string };
export declare function serverBuildStale(): boolean;
export declare function webBuildStale(testBuild?: boolean): boolean;
export declare function buildServer(options?: { outdir?: string }): Promise<void>;
export declare function buildWeb(options?: { verbose?: boolean; testBuild?: boolean }): Promise<void>;
export declare function builds(options?: { web?: boolean; server?: boolean; ifStale?: boolean; verbose?: boolean; testBuild?: boolean }): Promise<void>;
