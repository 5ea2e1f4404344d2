/**
 * The steps of a report form, each a section with a heading and "n of max". Inputs
 * show the draft from the machine's context and send one event per change; what is
 * enabled comes from `snapshot.can(...)`, which the machine guards again.
 */
import { lazy, Suspense, useId, useState, type ReactNode } from 'react';
import { lazyModule, useLazyModule } from '../components/lazyModule.ts';
import { useSelector } from '@xstate/react';
import * as v from 'valibot';
import { toBcp47, useLanguage, useT, type TFunction } from '../i18n/index.ts';
import { formatBytes } from '../i18n/bytes.ts';
import { formatDuration } from '../i18n/duration.ts';
import { useApi, useDrawingPicture, useLookAndFeel } from '../app/lookAndFeel.tsx';
import { Icon } from '../components/Icon.tsx';
import {
  LIMITS,
  VIOLATIONS,
  descriptionSchema,
  optionalDescriptionSchema,
  emailSchema,
  internationalPhoneSchema,
  passwordSchema,
  phoneOrEmailSchema,
  requiredText,
} from '../../machines/schema.ts';
import { hasVoiceMessage, stepValidity, type ProtectionOfficer, type ReportEvent, type StepName } from '../../machines/report.ts';
import { useReport } from './context.ts';
import { companyPhoneCountry, phoneExample } from '../components/phoneDefaults.ts';

// The phone input (≈ 15 kB gzip with its flags) is needed only once the reporter
// gives their identity, never for the first screen of the form.
const phoneModule = lazyModule(() => import('../components/PhoneField.tsx'));
import { Documents } from './Documents.tsx';
import { NotifyNotice } from './NotifyNotice.tsx';
import { groupPhone } from '../components/phone.ts';
import { TelLink } from '../components/TelLink.tsx';
import { passwordStrength } from './passwordStrength.ts';
import * as styles from './ReportForm.css.ts';
import * as fields from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';

export const stepHeadingId = (step: StepName) => `step-${step}-heading`;

// The recorder (its chart, effects, worklet and texts) loads only for a company that takes voice messages.
const VoiceRecorder = lazy(() => import('../voice/VoiceRecorder.tsx').then((m) => ({ default: m.VoiceRecorder })));

function useDraft() {
  return useSelector(useReport(), (s) => s.context.draft);
}

/**
 * Whether Send found the form incomplete since this field appeared. Errors show once
 * a field was left, or after such a Send; a field just revealed (identity given, a
 * person to add, following chosen) stays quiet until the reporter touches it or
 * presses Send again.
 */
function useAttempted() {
  const attempts = useSelector(useReport(), (s) => (s.context.firstInvalidStep !== null ? s.context.sendAttempts : 0));
  const all = useSelector(useReport(), (s) => s.context.sendAttempts);
  // Presentation only: the Sends that came before this field was shown.
  const [before] = useState(all);
  return attempts > before;
}

function firstMessage(schema: v.GenericSchema, value: unknown): string | undefined {
  const r = v.safeParse(schema, value);
  return r.success ? undefined : r.issues[0]?.message;
}

function Required() {
  return (
    <span className={styles.required} aria-hidden="true">
      *
    </span>
  );
}

/** A label and, if required, its asterisk, kept on the line of the last word: never an asterisk alone on a line. */
export function LabelText({ text, required = true }: { text: string; required?: boolean }) {
  if (!required) return <>{text}</>;
  const trimmed = text.trimEnd();
  const at = trimmed.lastIndexOf(' ');
  return (
    <>
      {trimmed.slice(0, at + 1)}
      <span className={styles.keepTogether}>
        {trimmed.slice(at + 1)}
        <Required />
      </span>
    </>
  );
}

function ErrorText({
  id,
  message,
  values,
  t,
}: {
  id: string;
  message: string | undefined;
  values?: Record<string, string>;
  t: TFunction;
}) {
  if (!message) return null;
  return (
    <p id={id} className={styles.error}>
      {t(message, values)}
    </p>
  );
}

function TextField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  /** The issue key of the current value, if any. */
  issue?: string;
  /** Values for the issue's message (a phone example). */
  issueValues?: Record<string, string>;
  multiline?: boolean;
  type?: string;
  autoComplete?: string;
  maxLength?: number;
  hint?: ReactNode;
  /** Hint styling: a warning near a limit, an error at it. */
  hintTone?: 'warning' | 'error';
  /** Show the issue now (e.g. after "Add person"), without waiting for the field to be left. */
  touched?: boolean;
}) {
  const t = useT('forms');
  const id = useId();
  const [left, setLeft] = useState(false);
  const attempted = useAttempted();
  const issue = left || attempted || props.touched ? props.issue : undefined;
  const describedBy = [props.hint ? `${id}-hint` : '', issue ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    value: props.value,
    required: props.required,
    'aria-required': props.required,
    'aria-invalid': issue ? true : undefined,
    'aria-describedby': describedBy,
    onBlur: () => setLeft(true),
    maxLength: props.maxLength,
    autoComplete: props.autoComplete,
  };
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        <LabelText text={props.label} required={!!props.required} />
      </label>
      {props.multiline ? (
        <textarea {...common} className={styles.textarea} onChange={(e) => props.onChange(e.target.value)} />
      ) : props.type === 'password' ? (
        <PasswordInput {...common} onChange={(value) => props.onChange(value)} />
      ) : (
        <input {...common} type={props.type ?? 'text'} className={styles.input} onChange={(e) => props.onChange(e.target.value)} />
      )}
      {props.hint && (
        <p
          id={`${id}-hint`}
          className={props.hintTone === 'error' ? styles.error : props.hintTone === 'warning' ? styles.warning : styles.hint}
          aria-live={props.hintTone ? 'polite' : undefined}
        >
          {props.hint}
        </p>
      )}
      <ErrorText id={`${id}-error`} message={issue} values={props.issueValues} t={t} />
    </div>
  );
}

/** A password field with show/hide: on a phone, typing blind is where mistakes happen. */
function PasswordInput(props: Omit<React.InputHTMLAttributes<HTMLInputElement>, 'onChange'> & { onChange: (value: string) => void }) {
  const t = useT('forms');
  const { onChange, ...input } = props;
  // Presentation only: whether the characters are shown.
  const [shown, setShown] = useState(false);
  return (
    <div className={styles.passwordRow}>
      <input {...input} type={shown ? 'text' : 'password'} className={styles.input} onChange={(e) => onChange(e.target.value)} />
      <button
        type="button"
        className={styles.passwordToggle}
        aria-pressed={shown}
        aria-controls={input.id}
        onClick={() => setShown((x) => !x)}
      >
        {t(shown ? 'forms.password.hide' : 'forms.password.show')}
      </button>
    </div>
  );
}

function Choices<T extends string>(props: {
  legend: string;
  name: string;
  value: T | null;
  options: Array<{ value: T; label: string; disabled?: boolean }>;
  onChange: (value: T) => void;
  issue?: string;
}) {
  const t = useT('forms');
  const id = useId();
  const attempted = useAttempted();
  const issue = attempted ? props.issue : undefined;
  return (
    <fieldset className={styles.fieldset} aria-describedby={issue ? `${id}-error` : undefined}>
      <legend className={styles.legend}>
        <LabelText text={props.legend} />
      </legend>
      <div className={styles.choices}>
        {props.options.map((o) => (
          <label key={o.value} className={styles.choice}>
            <input
              type="radio"
              name={props.name}
              value={o.value}
              checked={props.value === o.value}
              disabled={o.disabled}
              required
              onChange={() => props.onChange(o.value)}
            />
            {o.label}
          </label>
        ))}
      </div>
      <ErrorText id={`${id}-error`} message={issue} t={t} />
    </fieldset>
  );
}

function Step({ step, n, max, children }: { step: StepName; n: number; max: number; children: ReactNode }) {
  const t = useT('forms');
  const actor = useReport();
  const invalid = useSelector(actor, (s) => s.context.firstInvalidStep !== null && !stepValidity(s.context)[step]);
  // With one protection officer there is nothing to choose: the step says who receives the report.
  const lone = useSelector(actor, (s) => step === 'protectionOfficer' && s.context.company.protectionOfficers.length === 1);
  return (
    <section className={`${styles.step} ${invalid ? styles.stepInvalid : ''}`} aria-labelledby={stepHeadingId(step)} data-step={step}>
      <h2 id={stepHeadingId(step)} className={styles.stepHeading} tabIndex={-1}>
        <span className={styles.stepTitle}>{t(lone ? 'forms.step.protectionOfficer.titleLone' : `forms.step.${step}.title`)}</span>
        <span className={styles.counter}>{t('forms.step.counter', { n, max })}</span>
      </h2>
      {children}
    </section>
  );
}

// ---- the steps -----------------------------------------------------------------------

function SubsidiaryStep() {
  const t = useT('forms');
  const actor = useReport();
  const id = useId();
  const subsidiaries = useSelector(actor, (s) => s.context.company.subsidiaries);
  const value = useSelector(actor, (s) => s.context.draft.subsidiary);
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        {t('forms.subsidiary.label')}
      </label>
      <select
        id={id}
        className={styles.input}
        value={value ?? ''}
        onChange={(e) => actor.send({ type: 'subsidiary.select', id: e.target.value || null })}
      >
        <option value="">{t('forms.subsidiary.none')}</option>
        {subsidiaries.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function OfficerStep() {
  const t = useT('forms');
  const actor = useReport();
  const officers = useSelector(actor, (s) => s.context.company.protectionOfficers);
  const channel = useSelector(actor, (s) => s.context.channel);
  const value = useSelector(actor, (s) => s.context.draft.protectionOfficer);
  const attempted = useAttempted();
  const id = useId();
  // Phone and meeting reports start with a call: the numbers are to be tapped.
  const calling = channel !== 'online';
  const lone = officers.length === 1 ? officers[0]! : null;
  if (lone) {
    // Nothing to choose: the one officer (selected by the machine) is shown as who receives the report.
    return (
      <div className={styles.field}>
        <p className={styles.label}>{t('forms.officer.receiver')}</p>
        <div className={styles.receiver} data-testid="officer-receiver">
          <OfficerCard officer={lone} calling={calling} large />
        </div>
        {calling && lone.phone && <p className={styles.hint}>{t('phone.hideNumber')}</p>}
      </div>
    );
  }
  return (
    <fieldset className={styles.fieldset} aria-describedby={attempted && !value ? `${id}-error` : undefined}>
      <legend className={styles.legend}>
        <LabelText text={t('forms.officer.legend')} />
      </legend>
      <div className={styles.officers}>
        {officers.map((o) => (
          <label key={o.id} className={styles.officer}>
            <input
              type="radio"
              name="protectionOfficer"
              value={o.id}
              checked={value === o.id}
              required
              onChange={() => actor.send({ type: 'officer.select', id: o.id })}
            />
            <OfficerCard officer={o} calling={calling} />
          </label>
        ))}
      </div>
      {calling && officers.some((o) => o.phone) && <p className={styles.hint}>{t('phone.hideNumber')}</p>}
      <ErrorText id={`${id}-error`} message={attempted && !value ? 'forms.validation.selectOption' : undefined} t={t} />
    </fieldset>
  );
}

/** An officer's logo (on a light plate, wide enough to read), name, title, company and phone. */
function OfficerCard({ officer: o, calling, large = false }: { officer: ProtectionOfficer; calling: boolean; large?: boolean }) {
  const t = useT('forms');
  const api = useApi();
  return (
    <span className={styles.officerBody}>
      {o.logoUrl && <img className={large ? styles.officerLogoLarge : styles.officerLogo} src={api.url(o.logoUrl)} alt="" />}
      <span className={styles.officerText}>
        <strong>{o.name}</strong>
        {o.jobTitle && <span>{o.jobTitle}</span>}
        {o.company && <span>{o.company}</span>}
        {o.phone &&
          (calling ? (
            <TelLink phone={o.phone}>{(phone) => t('forms.officer.phone', { phone })}</TelLink>
          ) : (
            <span>{t('forms.officer.phone', { phone: groupPhone(o.phone) })}</span>
          ))}
        {o.customerRelation && <span className={styles.hint}>{t(`forms.officer.relation.${o.customerRelation}`)}</span>}
      </span>
    </span>
  );
}

function RelationStep() {
  const t = useT('forms');
  const actor = useReport();
  const value = useDraft().whistleblowerRelation;
  return (
    <TextField
      label={t('forms.relation.label')}
      hint={t('forms.relation.hint')}
      value={value}
      required
      maxLength={LIMITS.freeTextMax}
      issue={firstMessage(requiredText(), value)}
      onChange={(value) => actor.send({ type: 'relation.change', value })}
    />
  );
}

function DescribeProblemStep() {
  const t = useT('forms');
  const actor = useReport();
  const d = useDraft();
  const id = useId();
  const attempted = useAttempted();
  const laf = useLookAndFeel();
  const voice = laf.voice;
  const drawing = useDrawingPicture();
  const voiceAttached = hasVoiceMessage(d);
  return (
    <>
      <div className={styles.field}>
        <label htmlFor={id} className={styles.label}>
          {t('forms.describe.violation')}
        </label>
        <select
          id={id}
          className={styles.input}
          value={d.violation}
          onChange={(e) => actor.send({ type: 'violation.select', value: e.target.value as (typeof VIOLATIONS)[number] })}
        >
          {VIOLATIONS.map((x) => (
            <option key={x} value={x}>
              {t(`forms.violation.${x}`)}
            </option>
          ))}
        </select>
      </div>
      <TextField
        label={t('forms.describe.description')}
        value={d.description}
        multiline
        required={!voiceAttached}
        issue={firstMessage(voiceAttached ? optionalDescriptionSchema : descriptionSchema, d.description)}
        hint={t(counterKey(d.description.length), { count: d.description.length, max: LIMITS.descriptionMax })}
        hintTone={counterTone(d.description.length)}
        onChange={(value) => actor.send({ type: 'description.change', value })}
      />
      {voice?.enabled && !drawing && (
        <Suspense fallback={null}>
          <VoiceRecorder
            settings={voice}
            target="report"
            contactPhone={laf.contactPhone}
            bookingHref={laf.siteFrontPage.showBookingOption ? '/book-meeting' : undefined}
            onAttach={(file) => actor.send({ type: 'voice.attach', file })}
            onWithdraw={() => actor.send({ type: 'voice.remove' })}
          />
        </Suspense>
      )}
      <Choices
        legend={t('forms.describe.repeated')}
        name="repeatedViolations"
        value={d.repeatedViolations === null ? null : d.repeatedViolations ? 'yes' : 'no'}
        options={[
          { value: 'yes', label: t('forms.yes') },
          { value: 'no', label: t('forms.no') },
        ]}
        issue={attempted && d.repeatedViolations === null ? 'forms.validation.selectOption' : undefined}
        onChange={(x) => actor.send({ type: 'repeated.choose', value: x === 'yes' })}
      />
      {d.repeatedViolations === true && <p className={styles.hint}>{t('forms.describe.repeatedHint')}</p>}
    </>
  );
}

/** The description counter warns from 80 % of the limit, and is an error at it. */
const COUNTER_WARN_AT = Math.floor(LIMITS.descriptionMax * 0.8);
const counterTone = (n: number) => (n >= LIMITS.descriptionMax ? 'error' : n >= COUNTER_WARN_AT ? 'warning' : undefined);
const counterKey = (n: number) =>
  n >= LIMITS.descriptionMax ? 'forms.describe.counterFull' : n >= COUNTER_WARN_AT ? 'forms.describe.counterNear' : 'forms.describe.counter';

function ReportRelatedStep() {
  const t = useT('forms');
  const actor = useReport();
  const d = useDraft();
  const canAdd = useSelector(actor, (s) => s.can({ type: 'person.add' }));
  const personIncomplete = useSelector(actor, (s) => s.context.personIncomplete);
  const lang = useLanguage();
  // Phone numbers as the company's country writes them.
  const example = phoneExample(companyPhoneCountry(useLookAndFeel(), lang), lang);
  const p = d.personInput;
  const typing = p.name !== '' || p.jobTitle !== '' || p.phoneOrEmail !== '';
  const personIssue = (schema: v.GenericSchema, value: string) =>
    d.reportedPersons.length > 0 && !typing ? undefined : firstMessage(schema, value);
  const send = (e: ReportEvent) => actor.send(e);
  return (
    <>
      <Choices
        legend={t('forms.related.legend')}
        name="concerns"
        value={d.concerns}
        options={[
          { value: 'persons', label: t('forms.related.persons') },
          { value: 'company', label: t('forms.related.company') },
        ]}
        issue={d.concerns === null ? 'forms.validation.selectOption' : undefined}
        onChange={(value) => send({ type: 'concerns.choose', value })}
      />
      {d.concerns === 'persons' && (
        <>
          {d.reportedPersons.length > 0 && (
            <ul className={styles.persons} aria-label={t('forms.related.added')}>
              {d.reportedPersons.map((x, index) => (
                <li key={index} className={styles.person}>
                  <span>
                    {x.name}, {x.jobTitle}, {x.phoneOrEmail}
                  </span>
                  <button
                    type="button"
                    className={styles.linkButton}
                    onClick={() => send({ type: 'person.remove', index })}
                    aria-label={t('forms.related.remove', { name: x.name })}
                  >
                    {t('forms.remove')}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <TextField
            label={t('forms.related.name')}
            value={p.name}
            required
            autoComplete="off"
            issue={personIssue(requiredText(200), p.name)}
            touched={personIncomplete}
            onChange={(value) => send({ type: 'person.change', field: 'name', value })}
          />
          <TextField
            label={t('forms.related.jobTitle')}
            value={p.jobTitle}
            required
            autoComplete="off"
            issue={personIssue(requiredText(200), p.jobTitle)}
            touched={personIncomplete}
            onChange={(value) => send({ type: 'person.change', field: 'jobTitle', value })}
          />
          <TextField
            label={t('forms.related.phoneOrEmail')}
            value={p.phoneOrEmail}
            required
            autoComplete="off"
            issue={personIssue(phoneOrEmailSchema, p.phoneOrEmail)}
            issueValues={{ example }}
            hint={t('forms.related.phoneOrEmailHint', { example })}
            touched={personIncomplete}
            onChange={(value) => send({ type: 'person.change', field: 'phoneOrEmail', value })}
          />
          <button type="button" className={buttons.secondaryButton} disabled={!canAdd} onClick={() => send({ type: 'person.add' })}>
            {t('forms.related.add')}
          </button>
          {personIncomplete && missingPersonFields(p).length > 0 && (
            <p className={styles.error} role="alert">
              {t('forms.related.missing', { fields: missingPersonFields(p).map((f) => t(`forms.related.${f}`)).join(', ') })}
            </p>
          )}
        </>
      )}
      {d.concerns === 'company' && (
        <TextField
          label={t('forms.related.unit')}
          value={d.reportedUnit}
          required
          maxLength={LIMITS.freeTextMax}
          issue={firstMessage(requiredText(), d.reportedUnit)}
          onChange={(value) => send({ type: 'unit.change', value })}
        />
      )}
    </>
  );
}

/** The fields of a typed person that still keep "Add person" from adding it, in form order. */
function missingPersonFields(p: { name: string; jobTitle: string; phoneOrEmail: string }) {
  return (['name', 'jobTitle', 'phoneOrEmail'] as const).filter(
    (f) => !v.is(f === 'phoneOrEmail' ? phoneOrEmailSchema : requiredText(200), p[f]),
  );
}

function IdentityStep() {
  const t = useT('forms');
  const actor = useReport();
  const lang = useLanguage();
  const laf = useLookAndFeel();
  const d = useDraft();
  const w = d.whistleblower;
  // Fetched when the reporter chooses to give their identity (the only time it shows).
  const phone = useLazyModule(phoneModule, d.identity === 'reveal');
  const send = (e: ReportEvent) => actor.send(e);
  return (
    <>
      <Choices
        legend={t('forms.identity.legend')}
        name="identity"
        value={d.identity}
        options={[
          { value: 'reveal', label: t('forms.identity.reveal') },
          { value: 'anonymous', label: t('forms.identity.anonymous') },
        ]}
        issue={d.identity === null ? 'forms.validation.selectOption' : undefined}
        onChange={(value) => send({ type: 'identity.choose', value })}
      />
      <p className={styles.hint}>
        {t(d.identity === 'reveal' ? 'forms.identity.revealHint' : 'forms.identity.anonymousHint')}
      </p>
      {d.identity === 'reveal' && (
        <>
          <TextField
            label={t('forms.identity.name')}
            value={w.name}
            required
            autoComplete="name"
            issue={firstMessage(requiredText(200), w.name)}
            onChange={(value) => send({ type: 'identity.change', field: 'name', value })}
          />
          <TextField
            label={t('forms.identity.email')}
            value={w.email}
            type="email"
            required
            autoComplete="email"
            issue={firstMessage(emailSchema, w.email)}
            onChange={(value) => send({ type: 'identity.change', field: 'email', value })}
          />
          <IdentityPhone phone={phone} country={companyPhoneCountry(laf, lang)} />
          <label className={styles.choice}>
            <input
              type="checkbox"
              checked={w.notification}
              onChange={(e) => send({ type: 'notification.toggle', value: e.target.checked })}
            />
            {t('forms.identity.notification')}
          </label>
          {w.notification && <NotifyNotice />}
        </>
      )}
    </>
  );
}

/** The identity's phone: shown (and its error state born) when the identity is revealed. */
function IdentityPhone({ phone, country }: { phone: typeof phoneModule.current; country: string }) {
  const t = useT('forms');
  const actor = useReport();
  const lang = useLanguage();
  const w = useDraft().whistleblower;
  const phoneId = useId();
  const attempted = useAttempted();
  // Like name and e-mail: the phone's error shows once the field was left, or after Send.
  const [phoneLeft, setPhoneLeft] = useState(false);
  // Spec §5: validity comes from the input (the digits its country expects); the shared
  // rule names the Danish form first.
  const phoneIssue = w.phone ? (firstMessage(internationalPhoneSchema, w.phone) ?? (w.phoneValid ? undefined : 'validation.phone')) : undefined;
  const showPhoneIssue = phoneIssue && (attempted || phoneLeft);
  return (
    <div className={styles.field}>
      <label htmlFor={phoneId} className={styles.label}>
        {t('forms.identity.phone')}
      </label>
      {!phone ? (
        <input id={phoneId} className={fields.input} disabled aria-busy="true" />
      ) : (
        <phone.PhoneField
          id={phoneId}
          value={w.phone}
          defaultCountry={country}
          invalid={!!showPhoneIssue}
          describedBy={showPhoneIssue ? `${phoneId}-error` : undefined}
          countryLabel={t('forms.identity.country')}
          language={lang}
          onBlur={() => setPhoneLeft(true)}
          onChange={(value, countryCode, isValid) => actor.send({ type: 'phone.change', phone: value, countryCode, isValid })}
        />
      )}
      <ErrorText id={`${phoneId}-error`} message={showPhoneIssue ? phoneIssue : undefined} t={t} />
    </div>
  );
}

function FollowReportStep() {
  const t = useT('forms');
  const actor = useReport();
  const d = useDraft();
  const channel = useSelector(actor, (s) => s.context.channel);
  const canNotFollow = useSelector(actor, (s) => s.can({ type: 'follow.choose', value: false }));
  const canSend = useSelector(actor, (s) => s.can({ type: 'report.submit' }));
  const sendId = useId();
  // Send is never a silent grey button: what keeps it disabled stands next to it.
  const needs = [
    ...(d.termsAccepted ? [] : ['terms']),
    ...(d.follow === true && d.password === '' ? ['password'] : []),
    ...(d.follow === true && d.password !== '' && d.password !== d.passwordConfirmation ? ['confirm'] : []),
  ];
  const sending = useSelector(actor, (s) => s.hasTag('busy'));
  const send = (e: ReportEvent) => actor.send(e);
  const strength = passwordStrength(d.password);
  const confirmIssue =
    d.passwordConfirmation !== '' || d.password !== ''
      ? d.password === d.passwordConfirmation
        ? undefined
        : 'forms.validation.confirmPassword'
      : 'validation.required';
  return (
    <>
      {channel === 'online' ? (
        <>
          <Choices
            legend={t('forms.follow.legend')}
            name="follow"
            value={d.follow === null ? null : d.follow ? 'follow' : 'notFollow'}
            options={[
              { value: 'follow', label: t('forms.follow.follow') },
              { value: 'notFollow', label: t('forms.follow.notFollow'), disabled: !canNotFollow },
            ]}
            issue={d.follow === null ? 'forms.validation.selectOption' : undefined}
            onChange={(x) => send({ type: 'follow.choose', value: x === 'follow' })}
          />
          {d.whistleblower.notification && <p className={styles.hint}>{t('forms.follow.forced')}</p>}
        </>
      ) : (
        <p>{t('forms.follow.fixed')}</p>
      )}
      {d.follow === true && (
        <>
          <p className={styles.hint}>{t('forms.follow.explain')}</p>
          <TextField
            label={t('forms.follow.password')}
            type="password"
            autoComplete="new-password"
            value={d.password}
            required
            issue={firstMessage(passwordSchema, d.password) ?? (d.password ? undefined : 'validation.required')}
            hint={
              d.password ? (
                <span className={styles.strength}>
                  <meter className={styles.strengthBar} min={0} max={4} low={2} high={3} optimum={4} value={strength} aria-hidden="true" />
                  {t(`forms.follow.strength.${strength}`)}
                </span>
              ) : (
                t('forms.follow.passwordHint', { min: LIMITS.passwordMin })
              )
            }
            onChange={(value) => send({ type: 'password.change', value })}
          />
          <TextField
            label={t('forms.follow.confirm')}
            type="password"
            autoComplete="new-password"
            value={d.passwordConfirmation}
            required
            issue={confirmIssue}
            onChange={(value) => send({ type: 'passwordConfirmation.change', value })}
          />
        </>
      )}
      <Terms />
      <div className={styles.sendRow}>
        <button
          type="button"
          className={buttons.button}
          disabled={!canSend}
          aria-describedby={!canSend && !sending && needs.length ? `${sendId}-needs` : undefined}
          onClick={() => send({ type: 'report.submit' })}
        >
          {channel === 'oral' && <Icon name="phone" size={20} />}
          {t(`forms.send.${channel}`)}
        </button>
        {!canSend && !sending && needs.length > 0 && (
          <p id={`${sendId}-needs`} className={styles.hint}>
            {t('forms.send.needs', { steps: needs.map((n) => t(`forms.send.needs.${n}`)).join(', ') })}
          </p>
        )}
        {sending && <SendingStatus />}
      </div>
    </>
  );
}

/**
 * Beside Send while the report goes: "Sending your report…" (announced once, politely)
 * and, when files go with it, one bar for all of them with the speed and time left,
 * where the reporter's eyes are after pressing Send. The files' own bars stay in the
 * documents step, far above on a phone.
 */
export function SendingStatus() {
  const t = useT('forms');
  const locale = toBcp47(useLanguage());
  const progress = useSelector(useReport(), (s) => s.context.progress);
  const loaded = progress.reduce((n, p) => n + p.loaded, 0);
  const total = progress.reduce((n, p) => n + p.total, 0);
  const current = progress.find((p) => p.loaded < p.total);
  const retrying = progress.some((p) => p.retrying);
  const percent = total > 0 ? Math.floor((loaded / total) * 100) : 0;
  const speed = current?.bytesPerSecond ?? null;
  const secondsLeft = speed && speed > 0 ? Math.ceil((total - loaded) / speed) : null;
  return (
    <div className={styles.sendingStatus} data-testid="sending-status">
      <span className={styles.busy} role="status">
        {t('forms.sending')}
      </span>
      {total > 0 && (
        <>
          <progress
            className={styles.sendingBar}
            max={total}
            value={loaded}
            aria-label={t('forms.sending')}
            aria-valuetext={t('forms.sending.progress', { percent })}
          />
          <span className={styles.busy}>
            {t('forms.sending.progress', { percent })}
            {retrying ? (
              <>
                {' · '}
                {t('upload.stalled')}
              </>
            ) : (
              speed !== null &&
              secondsLeft !== null &&
              loaded < total && (
                <>
                  {' · '}
                  {t('upload.rate', { speed: formatBytes(speed, locale, t), time: formatDuration(secondsLeft, locale) })}
                </>
              )
            )}
          </span>
        </>
      )}
    </div>
  );
}

function Terms() {
  const t = useT('forms');
  const actor = useReport();
  const accepted = useDraft().termsAccepted;
  const attempted = useAttempted();
  const id = useId();
  return (
    <div className={styles.field}>
      <label className={styles.choice}>
        <input
          type="checkbox"
          checked={accepted}
          required
          aria-required
          aria-describedby={`${id}-links${attempted && !accepted ? ` ${id}-error` : ''}`}
          onChange={(e) => actor.send({ type: 'terms.toggle', value: e.target.checked })}
        />
        <span>
          <LabelText text={t('forms.terms.accept')} />
        </span>
      </label>
      <p id={`${id}-links`} className={styles.hint}>
        <a href="/about-whistleblowing/personal-data" target="_blank" rel="noopener noreferrer">
          {t('forms.terms.policy')}
        </a>
        {' · '}
        <a href="/about-whistleblowing/case-process" target="_blank" rel="noopener noreferrer">
          {t('forms.terms.process')}
        </a>
        {' '}
        {t('forms.newTab')}
      </p>
      <ErrorText id={`${id}-error`} message={attempted && !accepted ? 'validation.required' : undefined} t={t} />
    </div>
  );
}

const STEP_VIEWS: Record<StepName, () => ReactNode> = {
  subsidiary: SubsidiaryStep,
  protectionOfficer: OfficerStep,
  relation: RelationStep,
  describeProblem: DescribeProblemStep,
  reportRelated: ReportRelatedStep,
  documents: Documents,
  identity: IdentityStep,
  followReport: FollowReportStep,
};

export function ReportSteps({ steps }: { steps: StepName[] }) {
  const sending = useSelector(useReport(), (s) => s.hasTag('busy'));
  return (
    <form noValidate onSubmit={(e) => e.preventDefault()} aria-busy={sending || undefined}>
      <fieldset disabled={sending} className={styles.fieldset}>
        {steps.map((step, i) => {
          const View = STEP_VIEWS[step];
          return (
            <Step key={step} step={step} n={i + 1} max={steps.length}>
              <View />
            </Step>
          );
        })}
      </fieldset>
    </form>
  );
}
