export function withBuildLock<T>(repo: string, fn: () => Promise<T>): Promise<T>;
