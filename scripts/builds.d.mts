// Types of scripts/builds.mjs for the TypeScript that imports it (the browser tests' global setup).
export declare const SERVER_DIST: string;
export declare const WEB_DIST: string;
export declare const SERVER_ENV: { MALLOC_ARENA_MAX: string };
export declare function serverBuildStale(): boolean;
export declare function webBuildStale(): boolean;
export declare function buildServer(options?: { outdir?: string }): Promise<void>;
export declare function buildWeb(): void;
export declare function builds(options?: { web?: boolean; server?: boolean; ifStale?: boolean }): Promise<void>;
