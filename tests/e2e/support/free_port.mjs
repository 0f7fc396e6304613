// A free TCP port on loopback, for a server a test starts as its own process (or that must know
// its port before it listens).
import net from 'node:net';

export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
