// Idle keep-alive connections (docs/operations.md, "Connections"): the server keeps one open
// for a minute, so a client that comes back after a pause reuses it rather than racing the
// server's close (Node's own 5 s), and a proxy that keeps idle connections 60 s never sends
// on one the service has closed.
import assert from 'assert/strict';
import net from 'net';
import { KEEP_ALIVE_MS } from '../../http/server';
import { startTestWorld, type TestWorld } from '../support/world';

/** Sends one request on the socket and resolves with the response's head (status line and headers), or null if the socket closed first. */
function exchange(socket: net.Socket, path: string): Promise<string | null> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, head))?.[1] ?? 0);
      if (text.length - head - 4 >= length) { done(); resolve(text.slice(0, head)); }
    };
    const onClose = () => { done(); resolve(null); };
    const done = () => { socket.off('data', onData); socket.off('close', onClose); socket.off('end', onClose); };
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('end', onClose);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('idle keep-alive connections', function () {
  this.timeout(60_000);
  let w: TestWorld;
  before(async () => { w = await startTestWorld(); });
  after(async () => { await w?.close(); });

  it('do not hold up the world\'s close: one serving a request when it closes is closed once it has answered', async () => {
    const world = await startTestWorld({ nodes: 1 });
    const { hostname, port } = new URL(world.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    let closedAt = 0;
    socket.on('close', () => { closedAt = Date.now(); });
    let answer = '';
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('latin1'); });
    const body = JSON.stringify({ name: 'Late Agent', model: 'test-model' });
    // A request in progress: its body is still on its way when the world begins to close.
    socket.write(`POST /api/agents HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body.slice(0, 5)}`);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    const closing = world.close();
    await new Promise((r) => setTimeout(r, 100));
    socket.write(body.slice(5));
    await closing;
    const took = Date.now() - started;
    for (let i = 0; i < 40 && closedAt === 0; i++) await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    assert.ok(took < 10_000, `the world closed after ${took} ms (a kept connection would have held it ${KEEP_ALIVE_MS / 1000} s)`);
    assert.match(answer, /^HTTP\/1\.1 201/, 'the request was answered');
    assert.ok(closedAt > 0 && closedAt - started < 10_000, 'the connection was closed');
  });

  it('do not cut off a request that asked to continue (Expect: 100-continue) when the world closes while its body is on its way', async () => {
    const world = await startTestWorld({ nodes: 1 });
    const { hostname, port } = new URL(world.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    let answer = '';
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('latin1'); });
    const body = JSON.stringify({ name: 'Patient Agent', model: 'test-model' });
    socket.write(`POST /api/agents HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
    for (let i = 0; i < 100 && !/^HTTP\/1\.1 100/.test(answer); i++) await new Promise((r) => setTimeout(r, 20));
    assert.match(answer, /^HTTP\/1\.1 100/, 'the server asked for the body');
    const closing = world.close();
    // The close looks at the connections every 100 ms: several looks pass before the body comes.
    await new Promise((r) => setTimeout(r, 350));
    socket.write(body);
    await closing;
    for (let i = 0; i < 40 && !/HTTP\/1\.1 201/.test(answer); i++) await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    assert.match(answer, /HTTP\/1\.1 201/, `the request was answered: ${answer.slice(0, 200)}`);
  });

  it('do not hold up the world\'s close: one opened ahead that never carried a request (a browser\'s, a client pool\'s) is closed at once', async () => {
    const world = await startTestWorld({ nodes: 1 });
    const { hostname, port } = new URL(world.url);
    const used = net.connect(Number(port), hostname);
    await new Promise((r) => used.once('connect', r));
    assert.match(await exchange(used, '/api/world') ?? '', /^HTTP\/1\.1 200/);
    const ahead = net.connect(Number(port), hostname);
    await new Promise((r) => ahead.once('connect', r));
    const closed = new Promise<void>((r) => ahead.once('close', () => r()));
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await world.close();
    const took = Date.now() - started;
    used.destroy();
    await closed;
    ahead.destroy();
    assert.ok(took < 10_000, `the world closed after ${took} ms (Node would have waited headersTimeout, ${(KEEP_ALIVE_MS + 1_000) / 1000} s, for the unused connection)`);
  });

  it('are kept longer than a minute (longer than the usual idle timeout of a load balancer), and say so in Keep-Alive', async () => {
    assert.ok(KEEP_ALIVE_MS > 60_000);
    const { hostname, port } = new URL(w.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    try {
      const first = await exchange(socket, '/api/world');
      assert.match(first ?? '', /^HTTP\/1\.1 200/);
      assert.match(first ?? '', new RegExp(`keep-alive: timeout=${KEEP_ALIVE_MS / 1000}`, 'i'));
      // Longer than Node's default of 5 s: a server that kept to it would have closed the socket by now.
      await new Promise((r) => setTimeout(r, 6_000));
      const again = await exchange(socket, '/api/world');
      assert.match(again ?? 'the server closed the idle connection', /^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  });
});
