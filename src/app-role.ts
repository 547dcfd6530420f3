/** Which parts a process runs: HTTP controllers, queue processors, or both. */
export type AppRole = 'all' | 'api' | 'worker';

export function runsHttp(role: AppRole): boolean {
  return role !== 'worker';
}

export function runsWorkers(role: AppRole): boolean {
  return role !== 'api';
}
