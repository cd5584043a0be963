// The sockets kafkajs talks to the brokers through. Its own factory leaves Nagle's
// algorithm on, which holds a small request back until the previous one is acknowledged:
// with delayed acknowledgements that can add tens of milliseconds to a produce or a fetch,
// and a cross-node ask is two of each. Requests here are small and latency matters more
// than packing them, so the sockets send at once (TCP_NODELAY), as librdkafka now does.
import net from 'net';
import tls from 'tls';
import type { ISocketFactory } from 'kafkajs';

const KEEP_ALIVE_MS = 60_000;

export const immediateSockets: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = ssl
    ? tls.connect({ host, port, ...(net.isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : net.connect({ host, port }, onConnect);
  socket.setKeepAlive(true, KEEP_ALIVE_MS);
  socket.setNoDelay(true);
  return socket;
};
