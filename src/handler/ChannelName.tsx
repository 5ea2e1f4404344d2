/** How a case came, in words: the channel a handler entered it from (letter, e-mail, in person), else the reporter's own channel. */
import '../i18n/entry/index.ts';
import { useT } from '../i18n/index.ts';

export function ChannelName({ type, entered }: { type: string | undefined; entered: string | null | undefined }) {
  const t = useT('handler');
  const te = useT('entry');
  return <>{entered ? te(`entry.channel.${entered}`) : t(`handler.channel.${type ?? 'ONLINE_FORM'}`)}</>;
}
