import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandPath } from './command-path.ts';
import { spawnPinned, stopProcess } from './pinned.ts';

/**
 * A Debian nginx with one worker serving a directory of pre-built files: the yardstick for
 * "as fast as a static file". `gzip_static` serves `<file>.gz` when the client accepts gzip,
 * and nginx answers `If-None-Match` with 304 from its own ETag, so every bench scenario has a
 * static counterpart (https://nginx.org/en/docs/http/ngx_http_gzip_static_module.html).
 */
export interface StaticServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export function nginxBinary(): string | null {
  // Debian installs it in /usr/sbin, which a non-root PATH may leave out.
  return commandPath('nginx') ?? (existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : null);
}

export async function startNginx(options: {
  root: string;
  workDir: string;
  port: number;
  cpu?: number;
}): Promise<StaticServer> {
  const binary = nginxBinary();
  if (!binary) throw new Error('nginx is not installed: apt-get install -y nginx');
  const conf = join(options.workDir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
master_process on;
pid ${join(options.workDir, 'nginx.pid')};
error_log ${join(options.workDir, 'nginx-error.log')} warn;
events { worker_connections 4096; }
http {
  types { application/json json; }
  default_type application/json;
  access_log ${join(options.workDir, 'nginx-access.log')};
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  gzip_static on;
  client_body_temp_path ${options.workDir};
  proxy_temp_path ${options.workDir};
  fastcgi_temp_path ${options.workDir};
  uwsgi_temp_path ${options.workDir};
  scgi_temp_path ${options.workDir};
  server {
    listen 127.0.0.1:${options.port};
    root ${options.root};
    location / { add_header Cache-Control "private, max-age=600"; }
  }
}
`,
  );
  const args = ['-c', conf, '-p', options.workDir];
  const { child, stderr } = spawnPinned(options.cpu, binary, args);
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr().trim()}`);
    try {
      await fetch(`${url}/`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    pid: child.pid ?? 0,
    stop: () => stopProcess(child, 'SIGQUIT'),
  };
}
