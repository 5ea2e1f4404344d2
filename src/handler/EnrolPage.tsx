/**
 * /handler/enrol#<code>: set the password and the TOTP factor. The code is read from
 * the fragment (never sent in a URL) and the fragment is then dropped from the address.
 * The QR code is drawn here from the otpauth URI (qrcode, no third-party request).
 * Finishing makes the handler's keys in this browser (./keys.ts): the server gets the
 * verifier and the sealed keys, the page shows the key recovery code once.
 */
import { useEffect, useId, useMemo } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { HLink } from './links.tsx';
import QRCode from 'qrcode';
import { useT } from '../i18n/index.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { enrolmentMachine, passwordStrength, HANDLER_PASSWORD_MIN } from '../../machines/handler/enrolment.ts';
import { useHandler } from './context.ts';
import * as styles from './Pages.css.ts';

function QrSvg({ text, label }: { text: string; label: string }) {
  const cells = useMemo(() => {
    const q = QRCode.create(text, { errorCorrectionLevel: 'M' });
    const n = q.modules.size;
    const path: string[] = [];
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if (q.modules.get(x, y)) path.push(`M${x + 4},${y + 4}h1v1h-1z`);
    return { n: n + 8, d: path.join('') };
  }, [text]);
  return (
    <svg className={styles.qr} viewBox={`0 0 ${cells.n} ${cells.n}`} role="img" aria-label={label} shapeRendering="crispEdges">
      {/* Not themed on purpose: authenticator apps read dark modules on a light quiet zone, whatever the company's colours. */}
      <rect width={cells.n} height={cells.n} fill="white" />
      <path d={cells.d} fill="black" />
    </svg>
  );
}

export function EnrolPage() {
  const t = useT('handler');
  const tk = useT('keys');
  const { api } = useHandler();
  const actor = useActorRef(
    enrolmentMachine.provide({
      actors: {
        openEnrolment: fromPromise(({ input: i }: { input: { code: string } }) => api.openEnrolment(i.code)),
        finishEnrolment: fromPromise(({ input: i }: { input: { code: string; password: string; totpCode: string } }) => api.finishEnrolment(i)),
      },
    }),
  );
  const state = useSelector(actor, (s) => s);
  const ids = { password: useId(), repeat: useId(), totp: useId(), strength: useId() };
  useEffect(() => {
    document.title = `${t('handler.enrol.title')} – ${t('handler.title')}`;
  }, [t]);
  useEffect(() => {
    const code = window.location.hash.replace(/^#/, '');
    if (code) history.replaceState(history.state, '', window.location.pathname);
    actor.send({ type: 'link.open', code });
  }, [actor]);

  const o = state.context.opening;
  const strength = passwordStrength(state.context.password);
  const formError = state.matches({ editing: 'tooShort' })
    ? t('handler.enrol.tooShort', { min: HANDLER_PASSWORD_MIN })
    : state.matches({ editing: 'likeRecoveryCode' })
      ? tk('keys.enrol.likeCode')
      : state.matches({ editing: 'notRepeated' })
      ? t('handler.enrol.notRepeated')
      : state.matches({ editing: 'codeMissing' })
        ? t('handler.enrol.codeMissing')
        : state.matches({ editing: 'codeRefused' })
          ? t('handler.enrol.codeRefused')
          : state.matches({ editing: 'rateLimited' })
            ? t('handler.enrol.rateLimited')
            : state.matches({ editing: 'failed' })
              ? t('handler.error.unreachable')
              : null;

  return (
    <div className={styles.narrow}>
      <h1 className={styles.title}>{t('handler.enrol.title')}</h1>
      {(state.matches('waiting') || state.matches('opening')) && <p aria-busy="true">{t('handler.loading')}</p>}
      {state.matches('invalid') && (
        <section className={styles.section}>
          <p role="alert" className={styles.error}>
            {t('handler.enrol.invalid')}
          </p>
        </section>
      )}
      {(state.matches('unreachable') || state.matches('rateLimited')) && (
        <section className={styles.section}>
          <p role="alert" className={styles.error}>
            {t(state.matches('rateLimited') ? 'handler.enrol.rateLimited' : 'handler.error.unreachable')}
          </p>
          <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'retry' })}>
            {t('handler.retry')}
          </button>
        </section>
      )}
      {(state.matches('editing') || state.matches('finishing') || state.matches('checkingRepeat') || state.matches('checkingCode')) && o && (
        <form
          className={styles.form}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            actor.send({ type: 'enrol.submit' });
          }}
        >
          <section className={styles.section}>
            <p>{t('handler.enrol.intro', { name: o.name ?? '', email: o.email ?? '', company: o.companyName ?? '' })}</p>
            <h2 className={styles.sectionTitle}>{t('handler.enrol.passwordTitle')}</h2>
            <div className={styles.field}>
              <label htmlFor={ids.password} className={styles.label}>
                {t('handler.enrol.password', { min: HANDLER_PASSWORD_MIN })}
              </label>
              <input id={ids.password} type="password" autoComplete="new-password" className={input} value={state.context.password} aria-describedby={ids.strength}
                onChange={(e) => actor.send({ type: 'password.change', value: e.target.value })} aria-invalid={state.matches({ editing: 'tooShort' }) || state.matches({ editing: 'likeRecoveryCode' })} />
              <label htmlFor={`${ids.strength}-m`} className={styles.hint} id={ids.strength}>
                {t('handler.enrol.strength', { level: strength })}
              </label>
              <meter id={`${ids.strength}-m`} className={styles.meter} min={0} max={4} low={2} high={3} optimum={4} value={strength} />
            </div>
            <div className={styles.field}>
              <label htmlFor={ids.repeat} className={styles.label}>
                {t('handler.enrol.repeat')}
              </label>
              <input id={ids.repeat} type="password" autoComplete="new-password" className={input} value={state.context.repeat}
                onChange={(e) => actor.send({ type: 'repeat.change', value: e.target.value })} aria-invalid={state.matches({ editing: 'notRepeated' })} />
            </div>
          </section>
          <section className={styles.section}>
            <h2 className={styles.sectionTitle}>{t('handler.enrol.totpTitle')}</h2>
            <p>{t('handler.enrol.totpIntro')}</p>
            {o.uri && <QrSvg text={o.uri} label={t('handler.enrol.qr')} />}
            <p>
              {t('handler.enrol.secret')} <code className={styles.code} data-testid="totp-secret">{o.secret}</code>
            </p>
            <div className={styles.field}>
              <label htmlFor={ids.totp} className={styles.label}>
                {t('handler.enrol.totp')}
              </label>
              <input id={ids.totp} inputMode="numeric" autoComplete="one-time-code" className={input} value={state.context.totpCode}
                onChange={(e) => actor.send({ type: 'totp.change', value: e.target.value })} aria-invalid={state.matches({ editing: 'codeRefused' }) || state.matches({ editing: 'codeMissing' })} />
            </div>
          </section>
          <div role="alert">{formError && <p className={styles.error}>{formError}</p>}</div>
          <div>
            <button type="submit" className={buttons.button} disabled={!state.can({ type: 'enrol.submit' })}>
              {t('handler.enrol.submit')}
            </button>
          </div>
        </form>
      )}
      {state.matches('done') && (
        <section className={styles.section}>
          <p role="status" className={styles.success}>
            {t('handler.enrol.done')}
          </p>
          <h2 className={styles.sectionTitle}>{tk('keys.enrol.title')}</h2>
          <p>{tk('keys.enrol.text')}</p>
          <p>
            {tk('keys.enrol.code')}: <code className={styles.code} data-testid="key-recovery-code">{state.context.keyRecoveryCode}</code>
          </p>
          <p>
            <strong>{tk('keys.enrol.loss')}</strong>
          </p>
          <h2 className={styles.sectionTitle}>{t('handler.enrol.recoveryTitle')}</h2>
          <p>{t('handler.enrol.recoveryText')}</p>
          <ul className={styles.list} aria-label={t('handler.enrol.recoveryTitle')}>
            {state.context.recoveryCodes.map((c) => (
              <li key={c} className={styles.code}>
                {c}
              </li>
            ))}
          </ul>
          <p>
            <HLink to="/handler" className={buttons.button}>
              {t('handler.enrol.toSignIn')}
            </HLink>
          </p>
        </section>
      )}
    </div>
  );
}
