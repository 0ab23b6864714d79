// Whether a child process is still there, and waiting for it to be gone: tests of killed processes.
import { waitFor } from './wait.js';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True once the process has exited; false only when it is still there after the hung-test deadline. */
export async function gone(pid: number): Promise<boolean> {
  return waitFor(`process ${pid} to exit`, () => !alive(pid)).catch(() => false);
}
