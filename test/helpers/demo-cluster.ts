/** `npm run demo:cluster` (dist/bin/demo-cluster.js) as a real child process, with every child of its own. */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const CLUSTER_BIN = resolve(__dirname, '../../dist/bin/demo-cluster.js');

export interface RunningCluster {
  child: ChildProcess;
  /** `{base}` of each core, `{gw}` of each gateway, `{portal}`. */
  cores: string[];
  gateways: string[];
  portal: string;
  /** The development mailbox's page, `http://127.0.0.1:PORT/` (its JSON at `messages`), and its SMTP `127.0.0.1:PORT`. */
  mailbox: string;
  smtp: string;
  credentials: string;
  /** The five children (name, pid, origin). */
  processes: Array<{ name: string; pid: number; url: string }>;
  /** Every line it and its children logged so far. */
  log: string[];
}

/**
 * Starts the cluster on ephemeral ports in `dataDir` with `env` (SVC_POSTGRES_URL, SVC_REDIS_PREFIX…)
 * and resolves once it says it is ready; a cluster that exits first rejects with its log.
 */
export function startDemoCluster(dataDir: string, env: NodeJS.ProcessEnv): Promise<RunningCluster> {
  const child = spawn(process.execPath, [CLUSTER_BIN], {
    env: { ...process.env, SVC_LOG_LEVEL: 'info', SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_GATEWAY_PORT: '0', SVC_PORTAL_PORT: '0', SVC_MAIL_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as in a terminal: stopDemoCluster's SIGINT reaches every process of it, as Ctrl-C does.
    detached: true,
  });
  const log: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolvePromise, reject) => {
    child.once('exit', (code) => reject(new Error(`demo:cluster exited with ${code}: ${log.join('\n')}${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      log.push(line);
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (entry.msg !== 'svc demo cluster ready') return;
      child.removeAllListeners('exit');
      resolvePromise({ child, log, ...(entry as unknown as Omit<RunningCluster, 'child' | 'log'>) });
    });
  });
}

/** Ctrl-C: SIGINT to the cluster's whole process group (it and its children); resolves its exit code. */
export function stopDemoCluster(cluster: RunningCluster): Promise<number | null> {
  return exitOf(cluster, () => {
    try {
      process.kill(-cluster.child.pid!, 'SIGINT');
    } catch {
      // the group is gone already
    }
  });
}

/** Runs `cause` (a signal to some process) and resolves the cluster's exit code. */
export function exitOf(cluster: RunningCluster, cause: () => void): Promise<number | null> {
  return new Promise((resolvePromise) => {
    if (cluster.child.exitCode !== null) return resolvePromise(cluster.child.exitCode);
    cluster.child.once('exit', (code) => resolvePromise(code));
    cause();
  });
}
