/**
 * "Record a voice message" (issue 40): the recorder chart (machines/voiceRecorder.ts)
 * with its effects (./capture.ts), shown in the online form's description step and
 * in the private area's message composer. Only rendered for a company that takes
 * voice messages; the microphone is asked for only when the reporter starts.
 * The chosen clip is handed to `onAttach` as a File; `onWithdraw` takes it back.
 */
import { useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { voiceRecorderMachine, chosenClip, type VoiceClip } from '../../machines/voiceRecorder.ts';
import type { VoiceSettings } from '../../machines/schema.ts';
import { useT } from '../i18n/index.ts';
import '../i18n/voice/index.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import * as buttons from '../styles/button.css.ts';
import { canRecordVoice } from './support.ts';
import { capture, clipFile, openMicrophone, releaseClip } from './capture.ts';
import * as styles from './VoiceRecorder.css.ts';

/** m:ss */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function VoiceRecorder(props: {
  settings: VoiceSettings;
  target: 'report' | 'message';
  contactPhone?: string | null;
  onAttach: (file: File) => void;
  onWithdraw: () => void;
  /** Where "book a meeting" leads; absent in the private area. */
  bookingHref?: string;
}) {
  const t = useT('voice');
  const ids = { heading: useId(), choice: useId() };
  const actor = useActorRef(
    voiceRecorderMachine.provide({
      actors: { openMicrophone, capture },
      actions: {
        deliverClip: (_, p) => props.onAttach(clipFile(p.clip)),
        withdrawClip: () => props.onWithdraw(),
        releaseClips: (_, p) => p.clips.forEach(releaseClip),
      },
    }),
    { input: { maxMinutes: props.settings.maxMinutes, disguise: props.settings.disguise, supported: canRecordVoice() } },
  );
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  const send = actor.send;
  const maxMinutes = props.settings.maxMinutes;
  const alternatives = (
    <p className={styles.note}>
      {props.contactPhone ? t('voice.alternatives.phone', { phone: props.contactPhone }) : t('voice.alternatives.noPhone')}{' '}
      {props.bookingHref && (
        <a className={styles.link} href={props.bookingHref}>
          {t('voice.bookMeeting')}
        </a>
      )}
    </p>
  );
  const player = (clip: VoiceClip, label: string) => (
    // Never autoplay; the clip is this page's memory (a blob: URL), never a stored file.
    <audio className={styles.player} controls preload="metadata" src={clip.url} aria-label={label} data-voice={clip.disguised ? 'disguised' : 'original'} />
  );

  return (
    <section className={styles.box} aria-labelledby={ids.heading} data-voice-state={JSON.stringify(state.value)}>
      <h3 id={ids.heading} className={styles.heading}>
        {t('voice.heading')}
      </h3>

      {(state.matches('unsupported') || state.matches('failed')) && (
        <div role="status">
          <p className={styles.note}>{t(`voice.problem.${c.problem ?? 'unsupported'}`)}</p>
          {alternatives}
        </div>
      )}

      {(state.matches('idle') || state.matches('failed')) && (
        <>
          <p className={styles.note}>
            {t(`voice.intro.${props.settings.disguise}`)} {t('voice.maxLength', { minutes: maxMinutes })}
          </p>
          <div className={styles.actions}>
            <button type="button" className={buttons.button} disabled={!state.can({ type: 'recording.start' })} onClick={() => send({ type: 'recording.start' })}>
              {t('voice.start')}
            </button>
          </div>
        </>
      )}

      {state.matches('askingPermission') && (
        <p className={styles.note} role="status">
          {t('voice.asking')}
        </p>
      )}

      {state.matches('permissionRefused') && (
        <div role="alert">
          <p className={styles.note}>{t('voice.refused')}</p>
          {alternatives}
          <button type="button" className={buttons.secondaryButton} onClick={() => send({ type: 'recording.start' })}>
            {t('voice.retry')}
          </button>
        </div>
      )}

      {state.matches('capturing') && (
        <>
          <p className={styles.status} role="status" aria-live="polite">
            {state.matches({ capturing: 'paused' }) ? t('voice.paused') : state.matches({ capturing: 'limitReached' }) ? t('voice.limitReached', { minutes: maxMinutes }) : state.matches({ capturing: 'stopping' }) ? t('voice.finishing') : t('voice.recording')}
            {' · '}
            <span data-voice-elapsed={c.elapsed}>{t('voice.elapsed', { elapsed: formatDuration(c.elapsed), max: formatDuration(c.maxSeconds) })}</span>
          </p>
          <meter className={styles.meter} min={0} max={1} low={0.2} high={0.9} optimum={0.6} value={c.level} aria-label={t('voice.level')} />
          <div className={styles.actions}>
            {state.matches({ capturing: 'paused' }) ? (
              <button type="button" className={buttons.secondaryButton} onClick={() => send({ type: 'recording.resume' })}>
                {t('voice.resume')}
              </button>
            ) : (
              <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'recording.pause' })} onClick={() => send({ type: 'recording.pause' })}>
                {t('voice.pause')}
              </button>
            )}
            <button type="button" className={buttons.button} disabled={!state.can({ type: 'recording.stop' })} onClick={() => send({ type: 'recording.stop' })}>
              {t('voice.stop')}
            </button>
          </div>
        </>
      )}

      {(state.matches('reviewing') || state.matches({ discarding: 'fromReview' })) && (
        <>
          <h4 className={styles.heading}>{t('voice.review.heading')}</h4>
          {c.reachedLimit && <p className={styles.note}>{t('voice.limitReached', { minutes: maxMinutes })}</p>}
          <div className={styles.takes}>
            {c.disguised && (
              <div className={styles.take}>
                <strong>{t('voice.review.disguised')}</strong>
                {player(c.disguised, t('voice.review.disguised'))}
                <p className={styles.note}>{t('voice.review.disguisedHelp')}</p>
              </div>
            )}
            {c.original && (
              <div className={styles.take}>
                <strong>{t('voice.review.original')}</strong>
                {player(c.original, t('voice.review.original'))}
                <p className={styles.note}>{t('voice.review.originalHelp')}</p>
              </div>
            )}
          </div>
          {c.policy === 'choice' && (
            <fieldset className={styles.choices}>
              <legend>{t('voice.choose.legend')}</legend>
              {([true, false] as const).map((disguised) => (
                <label key={String(disguised)} className={styles.choice}>
                  <input
                    className={styles.radio}
                    type="radio"
                    name={ids.choice}
                    checked={c.sendDisguised === disguised}
                    disabled={!state.can({ type: 'voice.choose', disguised })}
                    onChange={() => send({ type: 'voice.choose', disguised })}
                  />
                  {t(disguised ? 'voice.choose.disguised' : 'voice.choose.original')}
                </label>
              ))}
            </fieldset>
          )}
          <div className={styles.actions}>
            <button type="button" className={buttons.button} disabled={!state.can({ type: 'recording.attach' })} onClick={() => send({ type: 'recording.attach' })}>
              {t(props.target === 'report' ? 'voice.attach.report' : 'voice.attach.message')}
            </button>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'recording.discard' })} onClick={() => send({ type: 'recording.discard' })}>
              {t('voice.discard')}
            </button>
          </div>
        </>
      )}

      {(state.matches('attached') || state.matches({ discarding: 'fromAttached' })) && chosenClip(c) && (
        <>
          <p className={styles.status} role="status">
            {t('voice.attached', { elapsed: formatDuration(c.elapsed) })} {t(chosenClip(c)!.disguised ? 'voice.attached.disguised' : 'voice.attached.original')}
          </p>
          {player(chosenClip(c)!, t('voice.heading'))}
          {props.target === 'report' && <p className={styles.note}>{t('voice.descriptionOptional')}</p>}
          <div className={styles.actions}>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'recording.discard' })} onClick={() => send({ type: 'recording.discard' })}>
              {t('voice.remove')}
            </button>
          </div>
        </>
      )}

      <ConfirmDialog
        open={state.matches('discarding')}
        title={t('voice.discardDialog.title')}
        description={t('voice.discardDialog.body')}
        cancelLabel={t('voice.discardDialog.cancel')}
        confirmLabel={t('voice.discardDialog.confirm')}
        onCancel={() => send({ type: 'discard.cancel' })}
        onConfirm={() => send({ type: 'discard.confirm' })}
      />
    </section>
  );
}
