/**
 * Raw calls to a test's supervisor, as any client (a page, a script) would make them. On
 * node:http rather than fetch: a supervisor killed while it holds the request closes the
 * connection, which node:http reports at once and fetch was seen to miss (CLOSE-WAIT for ever).
 */
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RawResponse {
  status: number;
  body: unknown;
}

/** `bearer`: what to authenticate with instead of the token (a session's credential, say). */
export function callApi(
  home: string,
  method: string,
  path: string,
  body?: unknown,
  bearer?: string,
): Promise<RawResponse> {
  const { port } = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8')) as { port: number };
  const token = bearer ?? readFileSync(join(home, 'token'), 'utf8').trim();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
