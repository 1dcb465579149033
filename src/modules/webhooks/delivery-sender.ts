import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_DELIVERY } from '../../config/timeouts.ts';
import { lookupPinnedTo, resolveSafely } from '../../lib/outbound-guard.ts';

const MAX_STORED_RESPONSE_BYTES = 1024;
/** The largest body the service POSTs: a larger event's deliveries fail without being sent. */
export const MAX_REQUEST_BODY_BYTES = 256 * 1024;

export interface Attempt {
  eventId: string;
  body: string;
  url: string;
  /** The current secret, then the previous one while a rotation's overlap lasts. */
  secrets: string[];
  allowPrivateNetworks: boolean;
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** The first KB of the receiver's answer. */
  responseBody: string | null;
}

/** The Standard Webhooks headers: one `v1,` signature per secret, space-separated. */
export function signatureHeaders(attempt: Pick<Attempt, 'eventId' | 'body' | 'secrets'>, at: Date): Record<string, string> {
  return {
    'webhook-id': attempt.eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': attempt.secrets.map((secret) => new Webhook(secret).sign(attempt.eventId, at, attempt.body)).join(' '),
  };
}

/**
 * One POST of an event. The host is resolved and checked here, and the socket connects to that checked
 * address (the lookup hook hands it over), so a name that resolves differently a moment later (DNS
 * rebinding) cannot reach a forbidden address. Redirects are not followed; a 2xx is success.
 */
export async function sendAttempt(attempt: Attempt, now: Date, stop: AbortSignal): Promise<AttemptOutcome> {
  const url = new URL(attempt.url);
  const resolved = await resolveSafely(url.hostname, attempt.allowPrivateNetworks);
  if (typeof resolved === 'string') return { ok: false, statusCode: null, error: resolved, responseBody: null };
  const lookup = lookupPinnedTo(resolved[0]!);
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        lookup,
        agent: false,
        signal: AbortSignal.any([AbortSignal.timeout(WEBHOOK_DELIVERY.requestMs), stop]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'scheduling-api-webhooks/1',
          ...signatureHeaders(attempt, now),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          const statusCode = res.statusCode ?? null;
          const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
          resolve({
            ok,
            statusCode,
            error: ok ? null : `the endpoint answered ${statusCode}`,
            responseBody: Buffer.concat(chunks).subarray(0, MAX_STORED_RESPONSE_BYTES).toString('utf8'),
          });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_STORED_RESPONSE_BYTES) finish();
        });
        res.on('end', finish);
        res.on('error', finish);
      },
    );
    req.on('error', (error) =>
      resolve({ ok: false, statusCode: null, error: describeFailure(error), responseBody: null }),
    );
    req.end(attempt.body);
  });
}

function describeFailure(error: Error): string {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') {
    return `no answer within ${WEBHOOK_DELIVERY.requestMs / 1000} seconds`;
  }
  const code = (error as { code?: string }).code;
  return code ? `connection failed (${code})` : 'connection failed';
}
