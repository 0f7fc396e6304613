// A forward HTTP proxy for the conformance runs' Chromium. The suite's test servers are written
// for native clients and send no CORS headers; a server deployed for browsers must send them,
// so this proxy answers their preflights and adds the headers to their answers, streaming
// answers through as they come (an SSE answer stays a stream). The page's URLs stay the
// servers' own, and nothing else about a request or an answer changes; requests to the site
// itself pass untouched.
import http from 'node:http';

/** Starts the proxy; `siteOrigin`'s requests pass as they are. */
export async function startCorsProxy(siteOrigin) {
  const server = http.createServer((req, res) => {
    let target;
    try {
      target = new URL(req.url);
    } catch {
      res.writeHead(400).end('a forward proxy takes absolute URLs');
      return;
    }
    const cors = target.origin === siteOrigin ? {} : {
      'access-control-allow-origin': req.headers.origin ?? '*',
      'access-control-expose-headers': '*',
    };
    if (req.method === 'OPTIONS' && target.origin !== siteOrigin && req.headers['access-control-request-method']) {
      res.writeHead(204, {
        ...cors,
        'access-control-allow-methods': req.headers['access-control-request-method'],
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
        'access-control-max-age': '600',
      }).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const upstream = http.request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...cors });
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, cors).end(`proxy: ${error.message}`);
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
