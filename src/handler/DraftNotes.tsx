/**
 * What an editor says about its draft kept on this device (docs/decisions/handler-drafts.md),
 * alike for a server-keyed case (CasePage) and a sealed one (SealedCase, SealedRecord).
 */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { useT } from '../i18n/index.ts';
import '../i18n/drafts/index.ts';
import type { draftMachine } from '../../machines/handler/draft.ts';
import type { recordEditorMachine } from '../../machines/handler/recordEditor.ts';
import type { DraftActor } from './useDraft.ts';
import * as styles from './Pages.css.ts';

type DraftSnapshot = SnapshotFrom<typeof draftMachine>;

/** Under an editor: whether its text is kept on this device yet (not a live region: it changes with every pause). */
export function DraftHint({ draft, typed }: { draft: DraftSnapshot; typed: boolean }) {
  const td = useT('drafts');
  if (!typed) return null;
  if (draft.matches('locked')) return <p className={styles.hint}>{td('drafts.locked')}</p>;
  if (draft.matches({ ready: 'kept' }) || draft.matches({ ready: 'restored' })) return <p className={styles.hint} data-testid="draft-kept">{td('drafts.kept')}</p>;
  return null;
}

/** Inside an editor's status region: a kept draft that did not open, or a store that refused it. */
export function DraftTrouble({ draft }: { draft: DraftSnapshot }) {
  const td = useT('drafts');
  if (draft.matches({ ready: 'unreadable' })) return <p className={styles.error}>{td('drafts.unreadable')}</p>;
  if (draft.matches({ ready: 'failed' })) return <p className={styles.error}>{td('drafts.failed')}</p>;
  return null;
}

/** A composer's line when its text is a draft back from an earlier sitting. */
export function MessageRestored({ restored }: { restored: boolean }) {
  const td = useT('drafts');
  return restored ? <p className={styles.success} data-testid="draft-restored">{td('drafts.restored')}</p> : null;
}

/** The record editor's draft: the restored line (a status) above the controls. */
export function RecordDraftRestored({ actor }: { actor: ActorRefFrom<typeof recordEditorMachine> }) {
  const td = useT('drafts');
  const restored = useSelector(actor, (s) => s.matches({ editing: 'restored' }));
  return <p role="status">{restored && <span className={styles.success} data-testid="record-draft-restored">{td('drafts.restoredRecord')}</span>}</p>;
}

/** The record editor's draft: the kept hint and any trouble below the controls, while editing. */
export function RecordDraftHint({ actor, draft }: { actor: ActorRefFrom<typeof recordEditorMachine>; draft: DraftActor }) {
  const editing = useSelector(actor, (s) => s.matches('editing') && s.context.draft.trim() !== '');
  const kept = useSelector(draft, (s) => s);
  return (
    <>
      {editing && <DraftHint draft={kept} typed />}
      <DraftTrouble draft={kept} />
    </>
  );
}
