/**
 * Whether this company's form seals a notification address to the mail key
 * (src/forms/NotifyNotice.tsx): the public key log says `sealedCases: "browser"`, names
 * an anchor and a mail key. Asked once per company host and page load, in memory only;
 * a failed read says no (the sentence is left out, the send checks the log itself).
 */
import type { ApiClient } from '../api/client.ts';

const asked = new Map<string, Promise<boolean>>();

export function sealsNotifyAddress(api: ApiClient, host: string): Promise<boolean> {
  let answer = asked.get(host);
  if (!answer) {
    answer = fetch(api.url('/api/public/key-log'), { headers: { accept: 'application/json', 'x-company-host': host }, credentials: 'omit', referrerPolicy: 'no-referrer' })
      .then(async (res) => {
        if (!res.ok) return false;
        const log = (await res.json().catch(() => null)) as { sealedCases?: unknown; anchor?: unknown; mailKey?: { keyId?: unknown } } | null;
        return log?.sealedCases === 'browser' && !!log.anchor && typeof log.mailKey?.keyId === 'string';
      })
      .catch(() => false);
    asked.set(host, answer);
  }
  return answer;
}
