/** Packs the portable svc into outDir (default dist-pack/); the tarball's path and size in bytes. */
export function packSvc(options?: { outDir?: string }): Promise<{ path: string; bytes: number }>
