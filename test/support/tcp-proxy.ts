// A TCP proxy in front of a server (Cassandra, in the tests), on a port of its own: it can
// be cut (every connection dropped, the port closed) and opened again on the same port, to
// make the server unreachable and reachable again without stopping it.
import net from 'net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface TcpProxy {
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A proxy to `target` (`host:port`) on a free port; closed until started. */
export async function tcpProxy(target: string): Promise<TcpProxy> {
  const [host, portText] = target.split(':');
  const targetPort = Number(portText ?? 9042);
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const port = await freePort();
  return {
    port,
    start: () => new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, host);
        sockets.add(client); sockets.add(upstream);
        const drop = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
        client.on('error', drop); upstream.on('error', drop); client.on('close', drop); upstream.on('close', drop);
        client.pipe(upstream); upstream.pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    }),
    stop: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (!server) { resolve(); return; }
      server.close(() => resolve());
      server = null;
    }),
  };
}
