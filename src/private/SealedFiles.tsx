/**
 * A sealed case's files on /private/messages (issue 37): the save chart
 * (machines/sealedFileSave.ts) given its effect, what the page says while a file is
 * opened and saved, after, or when it does not open, and a file whose name did not
 * open. Rendered only for sealed cases, so its catalogue never holds up the page of a
 * case the server keys.
 */
import { Suspense } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise, type ActorRefFrom } from 'xstate';
import '../i18n/sealedPrivate/index.ts';
import { useT } from '../i18n/index.ts';
import { sealedFileSaveMachine, type SaveOutcome, type SaveTarget } from '../../machines/sealedFileSave.ts';
import { deliverBlob, type PrivateServices } from './services.ts';
import * as pages from './Pages.css.ts';

export type SaveActor = ActorRefFrom<typeof sealedFileSaveMachine>;

/** The save chart of this page, opening with the case's key as this page holds it. */
export function useSealedSave(services: PrivateServices): SaveActor {
  return useActorRef(
    sealedFileSaveMachine.provide({
      actors: {
        saveFile: fromPromise<SaveOutcome, SaveTarget>(async ({ input }) => {
          const key = services.caseKey();
          if (!key) throw new Error('no case key');
          const { saveSealedFile } = await import('./sealedFiles.ts');
          return saveSealedFile(services.api, key, input, deliverBlob);
        }),
      },
    }),
  );
}

function StatusText({ actor, streaming }: { actor: SaveActor; streaming: boolean }) {
  const t = useT('sealedPrivate');
  const state = useSelector(actor, (s) => (s.matches('saving') ? 'saving' : s.matches('saved') ? 'saved' : s.matches('failed') ? 'failed' : 'idle'));
  const name = useSelector(actor, (s) => s.context.file?.name ?? '');
  return (
    <>
      {!streaming && <p className={pages.muted}>{t('sealedPrivate.save.fallback')}</p>}
      <p role="status" data-testid="sealed-save-status" data-state={state}>
        {state === 'saving' && t('sealedPrivate.save.saving', { name })}
        {state === 'saved' && t('sealedPrivate.save.saved', { name })}
      </p>
      {state === 'failed' && (
        <p role="alert" className={pages.error} data-testid="sealed-save-failed">
          {t('sealedPrivate.save.failed', { name })}
        </p>
      )}
    </>
  );
}

/** Where the page says how saving goes; `streaming`: this browser writes while opening. */
export function SaveStatus(props: { actor: SaveActor; streaming: boolean }) {
  return (
    <Suspense fallback={null}>
      <StatusText {...props} />
    </Suspense>
  );
}

function UnopenedText({ className }: { className?: string }) {
  const t = useT('sealedPrivate');
  return (
    <p className={className} data-testid="file-unopened">
      {t('sealedPrivate.file.unopened')}
    </p>
  );
}

/** A file whose sealed name did not open here: named as such, not offered. */
export function UnopenedFile({ className }: { className?: string }) {
  return (
    <Suspense fallback={null}>
      <UnopenedText className={className} />
    </Suspense>
  );
}

