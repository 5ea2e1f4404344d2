/**
 * The company editor (issue 39 item 5, docs/decisions/company-editor.md): every field
 * of the company file, drawn from the shared schema (machines/admin/companyDraft.ts),
 * the chart's issues beside their fields, the landing page of the draft in a frame,
 * versions, export and import. Thin: it reads the chart's snapshot and sends events.
 */
import { useId, useMemo, type ReactNode } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import '../../i18n/company/index.ts';
import { LANGUAGE_NAMES, LANGUAGES, toBcp47, useLanguage, useT, type Language } from '../../i18n/index.ts';
import { formatLongDateTime } from '../../i18n/dates.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import * as buttons from '../../styles/button.css.ts';
import { visuallyHidden } from '../../styles/global.css.ts';
import { companyEditorMachine, type EditorContext } from '../../../machines/admin/companyEditor.ts';
import { choicesAt, dotted, getAt, keysAt, kindAt, maxLengthAt, sameDraft, textRows, type Path } from '../../../machines/admin/companyDraft.ts';
import { contrastRatio, DARK_TEXT, isHexColour, LIGHT_TEXT, LOGO_CONTENT_TYPES, UNSET_COLOUR, type CompanyIssue } from '../../../machines/companyFile.ts';
import { useHandler } from '../context.ts';
import { companyEditorApi } from './companyApi.ts';
import * as page from '../Pages.css.ts';
import * as styles from './CompanyEditorPage.css.ts';

type Send = ReturnType<typeof useEditor>['send'];
type T = ReturnType<typeof useT>;

/** Top-level keys with a section of their own; every other key of the file is drawn in "The company". */
const OWN_SECTIONS = new Set(['$schema', 'hosts', 'languages', 'defaultLanguage', 'phoneCodes', 'siteColors', 'logo', 'protectionOfficers', 'subsidiaries', 'lookAndFeel', 'retention']);

function useEditor() {
  const { api, session } = useHandler();
  const handler = useSelector(session, (s) => s.context.handler);
  // The operator belongs to no company: they edit the company of the host they use.
  const companyId = handler?.companyId || window.location.hostname;
  const calls = useMemo(() => companyEditorApi(api.client), [api]);
  const actor = useActorRef(
    companyEditorMachine.provide({
      actors: {
        loadEditor: fromPromise(({ input }) => calls.loadEditor(input.companyId)),
        saveDraft: fromPromise(({ input }) => calls.saveDraft(input.companyId, input.baseVersion, input.draft)),
        createPreview: fromPromise(({ input }) => calls.createPreview(input.companyId, input.draft)),
        uploadImage: fromPromise(({ input }) => calls.uploadImage(input.companyId, input.contentType, input.base64, input.path)),
        loadVersions: fromPromise(({ input }) => calls.loadVersions(input.companyId)),
        revertVersion: fromPromise(({ input }) => calls.revertVersion(input.companyId, input.baseVersion, input.version)),
        importBundle: fromPromise(({ input }) => calls.importBundle(input.companyId, input.baseVersion, input.bundle)),
      },
      actions: { reportUnauthorized: () => session.send({ type: 'session.expired' }) },
    }),
    { input: { companyId } },
  );
  const state = useSelector(actor, (s) => s);
  return { state, send: actor.send, calls, companyId };
}

function issueText(t: T, issue: CompanyIssue): string {
  if (issue.rule === 'contrast') return t('rule.contrast', { ratio: (issue.ratio ?? 0).toFixed(2) });
  if (issue.rule === 'tooLong' || issue.rule === 'tooShort' || issue.rule === 'tooMany') return t(`rule.${issue.rule}`, { limit: issue.limit ?? 0 });
  return t(`rule.${issue.rule}`);
}

/** A field's label: its key's name, or the item's number. */
function labelOf(t: T, path: Path): string {
  const last = path.at(-1);
  if (typeof last === 'number') return path.at(-2) === 'protectionOfficers' ? t('officer.number', { n: last + 1 }) : t('item.number', { n: last + 1 });
  return t(`field.${String(last)}`);
}

/** Where a row of the texts table sits, in words: "Questions and answers › Questions › No. 2 › Heading". */
function rowLabel(t: T, path: Path): string {
  return path.map((_, i) => labelOf(t, path.slice(0, i + 1))).join(' › ');
}

async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

interface FieldProps {
  ctx: EditorContext;
  send: Send;
  path: Path;
  issues: Map<string, CompanyIssue>;
  label?: string;
  /** A label read by assistive technology only (the texts table's cells). */
  hiddenLabel?: boolean;
  disabled?: boolean;
  lang?: Language;
}

/** One value of the file, drawn as its schema says. */
function Field({ ctx, send, path, issues, label, hiddenLabel, disabled, lang }: FieldProps) {
  const t = useT('company');
  const id = useId();
  const kind = kindAt(path);
  const value = getAt(ctx.draft!.file, path);
  const issue = issues.get(dotted(path));
  const errorId = `${id}-error`;
  const name = label ?? labelOf(t, path);
  const common = {
    id,
    disabled,
    'aria-invalid': issue ? true : undefined,
    'aria-describedby': issue ? errorId : undefined,
    lang: lang ? toBcp47(lang) : undefined,
    'data-field': dotted(path),
  } as const;
  const change = (next: unknown) => send({ type: 'field.change', path, value: next });
  let control: ReactNode;
  if (kind === 'boolean') {
    return (
      <div>
        <label className={styles.check}>
          <input type="checkbox" {...common} checked={value === true} onChange={(e) => change(e.target.checked)} />
          <span className={hiddenLabel ? visuallyHidden : undefined}>{name}</span>
        </label>
        {issue && <p id={errorId} className={page.error}>{issueText(t, issue)}</p>}
      </div>
    );
  }
  if (kind === 'choice') {
    const optional = path.at(-1) === 'pageType';
    control = (
      <select {...common} className={styles.input} value={typeof value === 'string' ? value : ''} onChange={(e) => change(e.target.value === '' ? undefined : e.target.value)}>
        {optional && <option value="">{t('choice.none')}</option>}
        {choicesAt(path).map((c) => (
          <option key={c} value={c}>
            {(LANGUAGES as readonly string[]).includes(c) ? LANGUAGE_NAMES[c as Language] : t(`choice.${c}`)}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'number') {
    control = (
      <input {...common} className={styles.input} type="number" inputMode="numeric" value={typeof value === 'number' ? value : ''} onChange={(e) => change(e.target.value === '' ? undefined : Number(e.target.value))} />
    );
  } else if (kind === 'paragraph') {
    control = <textarea {...common} className={styles.textarea} maxLength={maxLengthAt(path)} value={typeof value === 'string' ? value : ''} onChange={(e) => change(e.target.value)} />;
  } else {
    const optional = path.length === 1 && path[0] === 'quickExitUrl';
    control = (
      <input
        {...common}
        className={styles.input}
        type="text"
        maxLength={maxLengthAt(path)}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => change(optional && e.target.value === '' ? undefined : e.target.value)}
      />
    );
  }
  return (
    <div className={page.field}>
      <label htmlFor={id} className={hiddenLabel ? visuallyHidden : page.label}>
        {name}
      </label>
      {control}
      {issue && (
        <p id={errorId} className={page.error}>
          {issueText(t, issue)}
        </p>
      )}
    </div>
  );
}

/** An image of the file (the logo, an officer's logo): what it is now, and a new one to upload. */
function ImageField({ ctx, send, path, issues, calls }: FieldProps & { calls: ReturnType<typeof companyEditorApi> }) {
  const t = useT('company');
  const id = useId();
  const asset = getAt(ctx.draft!.file, path) as { file: string; contentType: string } | undefined;
  const ref = asset ? ctx.draft!.images[asset.file] : undefined;
  const issue = issues.get(`${dotted(path)}.file`);
  const what = path.length === 1 ? t('section.logo') : labelOf(t, path.slice(0, -1));
  return (
    <div className={page.field}>
      {ref && <img className={styles.logo} src={calls.imageUrl(ctx.companyId, ref.sha256)} alt={t('logo.current')} />}
      <label htmlFor={id} className={page.label}>
        {t('action.upload', { what })}
      </label>
      <input
        id={id}
        type="file"
        className={styles.fileLabel}
        accept={LOGO_CONTENT_TYPES.join(',')}
        onChange={async (e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) send({ type: 'image.choose', path, contentType: file.type, base64: await base64Of(file) });
        }}
      />
      {issue && <p className={page.error}>{issueText(t, issue)}</p>}
    </div>
  );
}

/** A part of the file drawn from its schema: a group of fields, a list with add and remove, or one field. */
function Generic(props: FieldProps & { calls: ReturnType<typeof companyEditorApi> }) {
  const t = useT('company');
  const { ctx, send, path } = props;
  const kind = kindAt(path);
  const last = path.at(-1);
  if (last === 'logo') return <ImageField {...props} />;
  if (kind === 'group') {
    const keys = keysAt(path).filter((k) => k !== 'id' || path.length > 1);
    return (
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>{labelOf(t, path)}</legend>
        {keys.map((k) => (
          <Generic key={k} {...props} path={[...path, k]} label={undefined} />
        ))}
      </fieldset>
    );
  }
  if (kind === 'list') {
    const items = (getAt(ctx.draft!.file, path) as unknown[] | undefined) ?? [];
    const what = labelOf(t, path);
    return (
      <div className={page.field}>
        {items.map((_, i) => (
          <fieldset key={i} className={styles.fieldset}>
            <legend className={styles.legend}>{labelOf(t, [...path, i])}</legend>
            {keysAt([...path, i]).map((k) => (
              <Generic key={k} {...props} path={[...path, i, k]} label={undefined} />
            ))}
            <div>
              <button type="button" className={buttons.secondaryButton} disabled={props.disabled} onClick={() => send({ type: 'item.remove', path, index: i })}>
                {t('action.remove', { what: labelOf(t, [...path, i]) })}
              </button>
            </div>
          </fieldset>
        ))}
        <div>
          <button
            type="button"
            className={buttons.secondaryButton}
            disabled={props.disabled}
            onClick={() => send({ type: 'item.add', path, id: path[0] === 'protectionOfficers' ? crypto.randomUUID() : `new-${items.length + 1}` })}
          >
            {t('action.addNamed', { what })}
          </button>
        </div>
      </div>
    );
  }
  return <Field {...props} />;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className={page.section} aria-labelledby={id}>
      <h2 id={id} className={page.sectionTitle}>
        {title}
      </h2>
      {children}
    </section>
  );
}

function Colours({ ctx, send, issues }: { ctx: EditorContext; send: Send; issues: Map<string, CompanyIssue> }) {
  const t = useT('company');
  const colors = ctx.draft!.file.siteColors;
  const rows: { key: 'primaryColorCode' | 'secondaryColorCode' | 'infoColorCode'; against?: string; note?: string }[] = [
    { key: 'primaryColorCode', against: LIGHT_TEXT, note: 'colour.primaryOnWhite' },
    { key: 'secondaryColorCode', against: DARK_TEXT, note: 'colour.darkOnSecondary' },
    { key: 'infoColorCode' },
  ];
  return (
    <>
      {rows.map(({ key, against, note }) => {
        const value = colors[key];
        return (
          <div key={key} className={page.field}>
            <Field ctx={ctx} send={send} path={['siteColors', key]} issues={issues} />
            <div className={styles.colourRow}>
              <input
                type="color"
                className={styles.swatch}
                aria-label={t(`field.${key}`)}
                value={isHexColour(value) ? value.toLowerCase() : UNSET_COLOUR}
                onChange={(e) => send({ type: 'field.change', path: ['siteColors', key], value: e.target.value })}
              />
              {against && isHexColour(value) && (
                <>
                  <span className={styles.sample} style={{ background: value, color: against }} aria-hidden="true">
                    {t('colour.sample')}
                  </span>
                  <span data-contrast={key}>{t(note!, { ratio: (Math.floor(contrastRatio(value, against) * 100) / 100).toFixed(2) })}</span>
                </>
              )}
            </div>
          </div>
        );
      })}
    </>
  );
}

function Languages({ ctx, send, issues }: { ctx: EditorContext; send: Send; issues: Map<string, CompanyIssue> }) {
  const t = useT('company');
  const file = ctx.draft!.file;
  return (
    <>
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>{t('languages.offered')}</legend>
        {LANGUAGES.map((l) => (
          <label key={l} className={styles.check} lang={toBcp47(l)}>
            <input
              type="checkbox"
              checked={file.languages.includes(l)}
              disabled={l === file.defaultLanguage}
              aria-describedby={l === file.defaultLanguage ? 'company-default-kept' : undefined}
              onChange={(e) => send(e.target.checked ? { type: 'language.add', language: l, languageName: LANGUAGE_NAMES[l] } : { type: 'language.remove', language: l })}
            />
            {LANGUAGE_NAMES[l]}
          </label>
        ))}
        <p id="company-default-kept" className={page.hint}>
          {t('languages.defaultKept')}
        </p>
      </fieldset>
      <Field ctx={ctx} send={send} path={['defaultLanguage']} issues={issues} />
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>{t('field.phoneCodes')}</legend>
        {file.languages.map((l) => (
          <Field key={l} ctx={ctx} send={send} path={['phoneCodes', l]} issues={issues} label={LANGUAGE_NAMES[l]} />
        ))}
      </fieldset>
    </>
  );
}

/** One page's texts (the front page, how to report, …) in a table: a row per text, a column per language. */
function TextGroup({ ctx, send, issues, group, rows }: { ctx: EditorContext; send: Send; issues: Map<string, CompanyIssue>; group: string; rows: ReturnType<typeof textRows> }) {
  const t = useT('company');
  const file = ctx.draft!.file;
  const missing = rows.reduce((n, r) => n + r.missing.length, 0);
  const invalid = rows.some((r) => file.languages.some((l) => issues.has(dotted(['lookAndFeel', l, ...r.path]))));
  return (
    <details className={styles.group} open={group === 'siteFrontPage' || invalid || undefined} data-group={group}>
      <summary className={styles.summary}>
        {t(group === 'entry' ? 'texts.entry' : `field.${group}`)}
        {missing > 0 && <span className={styles.missing}>{t('texts.missingCount', { count: missing })}</span>}
      </summary>
      <div className={styles.textsWrap} tabIndex={0} role="group" aria-label={t(group === 'entry' ? 'texts.entry' : `field.${group}`)}>
        <table className={styles.texts}>
          <thead>
            <tr>
              <th scope="col">{t('texts.field')}</th>
              {file.languages.map((l) => (
                <th key={l} scope="col" lang={toBcp47(l)}>
                  {LANGUAGE_NAMES[l]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const label = rowLabel(t, row.path);
              return (
                <tr key={dotted(row.path)} data-row={dotted(row.path)}>
                  <th scope="row">{label}</th>
                  {file.languages.map((l) => (
                    <td key={l} data-language={l}>
                      {row.missing.includes(l) && <span className={styles.missing}>{t('texts.missing')}</span>}
                      <Field ctx={ctx} send={send} path={['lookAndFeel', l, ...row.path]} issues={issues} label={`${label} (${LANGUAGE_NAMES[l]})`} hiddenLabel lang={l} />
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function Texts({ ctx, send, issues }: { ctx: EditorContext; send: Send; issues: Map<string, CompanyIssue> }) {
  const t = useT('company');
  const groups = new Map<string, ReturnType<typeof textRows>>();
  for (const row of textRows(ctx.draft!.file)) {
    // A text of the entry itself (the language's name, the contact overrides) goes with the language's own group.
    const group = row.path.length > 1 ? String(row.path[0]) : 'entry';
    groups.set(group, [...(groups.get(group) ?? []), row]);
  }
  return (
    <>
      <p className={page.hint}>{t('section.textsIntro')}</p>
      {[...groups].map(([group, rows]) => (
        <TextGroup key={group} ctx={ctx} send={send} issues={issues} group={group} rows={rows} />
      ))}
    </>
  );
}

function Preview({ ctx, send, state, calls }: { ctx: EditorContext; send: Send; state: ReturnType<typeof useEditor>['state']; calls: ReturnType<typeof companyEditorApi> }) {
  const t = useT('company');
  const id = useId();
  const lang = ctx.previewLanguage!;
  return (
    <Section title={t('preview.title')}>
      <div className={page.row}>
        <div className={page.field}>
          <label htmlFor={id} className={page.label}>
            {t('preview.language')}
          </label>
          <select id={id} className={styles.input} value={lang} onChange={(e) => send({ type: 'preview.language', language: e.target.value as Language })}>
            {ctx.draft!.file.languages.map((l) => (
              <option key={l} value={l} lang={toBcp47(l)}>
                {LANGUAGE_NAMES[l]}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'preview.close' })} onClick={() => send({ type: 'preview.close' })}>
          {t('action.close')}
        </button>
      </div>
      {state.matches({ previewing: 'drawing' }) && <p role="status">{t('preview.drawing')}</p>}
      {state.matches({ previewing: 'failed' }) && <p className={page.error}>{t('preview.failed')}</p>}
      {state.matches({ previewing: 'shown' }) && ctx.previewId && (
        <iframe className={styles.frame} title={t('preview.frame', { language: LANGUAGE_NAMES[lang] })} src={calls.previewUrl(ctx.companyId, ctx.previewId, lang)} sandbox="allow-same-origin" data-testid="company-preview" />
      )}
    </Section>
  );
}

function Versions({ ctx, send, state }: { ctx: EditorContext; send: Send; state: ReturnType<typeof useEditor>['state'] }) {
  const t = useT('company');
  const language = useLanguage();
  return (
    <Section title={t('action.versions')}>
      {state.matches({ versions: 'loading' }) && <p role="status">{t('versions.loading')}</p>}
      {state.matches({ versions: 'failed' }) && <p className={page.error}>{t('versions.failed')}</p>}
      <ul className={styles.versions}>
        {ctx.versions.map((v) => (
          <li key={v.version}>
            <span>
              {t(`versions.${v.action}`, { version: v.version, from: v.revertedTo ?? 0, name: v.actorName, date: formatLongDateTime(v.createdAt, language) })}
              {v.version === ctx.version && ` ${t('versions.current')}`}
            </span>
            {v.version !== ctx.version && (
              <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'revert.request', version: v.version })} onClick={() => send({ type: 'revert.request', version: v.version })}>
                {t('versions.restore', { version: v.version })}
              </button>
            )}
          </li>
        ))}
      </ul>
      <div>
        <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'versions.close' })} onClick={() => send({ type: 'versions.close' })}>
          {t('action.close')}
        </button>
      </div>
    </Section>
  );
}

function Notes({ ctx, send, state }: { ctx: EditorContext; send: Send; state: ReturnType<typeof useEditor>['state'] }) {
  const t = useT('company');
  const refusal = ctx.refusal;
  const reason = refusal
    ? ['IMAGE_REFUSED', 'IMAGE_TOO_LARGE', 'HOSTS_OPERATOR_ONLY', 'COMPANY_ID_MISMATCH'].includes(refusal.code)
      ? t(`refusal.${refusal.code}`)
      : refusal.code === 'INVALID_COMPANY_FILE'
        ? t('refusal.INVALID_COMPANY_FILE', { field: refusal.field ?? '' })
        : t('refusal.other', { code: refusal.code })
    : '';
  return (
    <div role="status" aria-live="polite" data-testid="company-note">
      {state.matches({ editing: 'saved' }) && <p className={page.success}>{t('note.saved')}</p>}
      {state.matches({ editing: 'conflict' }) && (
        <>
          <p className={page.error}>{t('note.conflict')}</p>
          <button type="button" className={buttons.secondaryButton} onClick={() => send({ type: 'editor.retry' })}>
            {t('note.reload')}
          </button>
        </>
      )}
      {state.matches({ editing: 'refused' }) && <p className={page.error}>{t('note.refused', { reason })}</p>}
      {state.matches({ editing: 'failed' }) && <p className={page.error}>{t('note.failed')}</p>}
    </div>
  );
}

export function CompanyEditorPage() {
  const t = useT('company');
  const { state, send, calls, companyId } = useEditor();
  const ctx = state.context;
  const issues = useMemo(() => new Map(ctx.issues.map((i) => [i.field, i] as const)), [ctx.issues]);
  const importId = useId();

  if (state.matches('loading')) return <p role="status">{t('editor.loading')}</p>;
  if (state.matches('failed') || !ctx.draft) {
    return (
      <div>
        <h1 className={page.title}>{t('editor.title')}</h1>
        <p className={page.error}>{t('editor.loadFailed')}</p>
        <button type="button" className={buttons.button} disabled={!state.can({ type: 'editor.retry' })} onClick={() => send({ type: 'editor.retry' })}>
          {t('editor.retry')}
        </button>
      </div>
    );
  }
  const file = ctx.draft.file;
  const changed = !!ctx.saved && !sameDraft(ctx.draft, ctx.saved);
  const busy = state.hasTag('busy');
  const field = { ctx, send, issues, calls };
  return (
    <div aria-busy={busy || undefined}>
      <h1 className={page.title}>{t('editor.title')}</h1>
      <p className={page.hint}>{t('editor.intro')}</p>
      <p>
        {t('editor.version', { version: ctx.version })} · {changed ? t('editor.changed') : t('editor.noChanges')}
        {ctx.issues.length > 0 && (
          <span className={page.error} data-testid="company-issues">
            {' '}
            {t('editor.issues', { count: ctx.issues.length })}
          </span>
        )}
      </p>
      <div className={styles.toolbar} role="toolbar" aria-label={t('editor.title')}>
        <button type="button" className={buttons.button} disabled={!state.can({ type: 'save.request' })} onClick={() => send({ type: 'save.request' })}>
          {t('action.save')}
        </button>
        <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'preview.open', language: file.defaultLanguage })} onClick={() => send({ type: 'preview.open', language: file.defaultLanguage })}>
          {t('action.preview')}
        </button>
        <button type="button" className={buttons.secondaryButton} disabled={!changed || !state.can({ type: 'draft.discard' })} onClick={() => send({ type: 'draft.discard' })}>
          {t('action.discard')}
        </button>
        <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'versions.open' })} onClick={() => send({ type: 'versions.open' })}>
          {t('action.versions')}
        </button>
        <a className={buttons.secondaryButton} href={calls.exportUrl(companyId)} download={`${file.id}.company.json`}>
          {t('action.export')}
        </a>
        <label htmlFor={importId} className={buttons.secondaryButton}>
          {t('action.import')}
        </label>
        <input
          id={importId}
          type="file"
          accept="application/json,.json"
          className={visuallyHidden}
          disabled={!state.can({ type: 'import.choose', bundle: null })}
          onChange={async (e) => {
            const chosen = e.target.files?.[0];
            e.target.value = '';
            if (!chosen) return;
            let bundle: unknown = null;
            try {
              bundle = JSON.parse(await chosen.text());
            } catch {
              // Not JSON: the server says what is wrong, as for any other bad file.
            }
            send({ type: 'import.choose', bundle });
          }}
        />
      </div>
      <Notes ctx={ctx} send={send} state={state} />

      {state.matches('previewing') && <Preview ctx={ctx} send={send} state={state} calls={calls} />}
      {state.matches('versions') && <Versions ctx={ctx} send={send} state={state} />}

      <Section title={t('section.general')}>
        {keysAt([])
          .filter((k) => !OWN_SECTIONS.has(k))
          .map((k) => (
            <Generic key={k} {...field} path={[k]} disabled={k === 'id'} />
          ))}
        <fieldset className={styles.fieldset}>
          <legend className={styles.legend}>{t('field.hosts')}</legend>
          {!ctx.canEditHosts && <p className={page.hint}>{t('hosts.operatorOnly')}</p>}
          {file.hosts.map((_, i) => (
            <Field key={i} {...field} path={['hosts', i]} label={`${t('field.hosts')} ${i + 1}`} disabled={!ctx.canEditHosts} />
          ))}
          {ctx.canEditHosts && (
            <div>
              <button type="button" className={buttons.secondaryButton} onClick={() => send({ type: 'item.add', path: ['hosts'], id: '' })}>
                {t('action.addNamed', { what: t('field.hosts') })}
              </button>
            </div>
          )}
        </fieldset>
      </Section>
      <Section title={t('section.languages')}>
        <Languages ctx={ctx} send={send} issues={issues} />
      </Section>
      <Section title={t('section.colours')}>
        <Colours ctx={ctx} send={send} issues={issues} />
      </Section>
      <Section title={t('section.logo')}>
        <ImageField {...field} path={['logo']} />
      </Section>
      <Section title={t('section.officers')}>
        <Generic {...field} path={['protectionOfficers']} />
      </Section>
      <Section title={t('section.subsidiaries')}>
        <Generic {...field} path={['subsidiaries']} />
      </Section>
      <Section title={t('section.retention')}>
        {keysAt(['retention']).map((k) => (
          <Field key={k} {...field} path={['retention', k]} />
        ))}
      </Section>
      <Section title={t('section.texts')}>
        <Texts ctx={ctx} send={send} issues={issues} />
      </Section>

      <ConfirmDialog
        open={state.matches('confirmingSave') || state.matches('saving')}
        title={t('save.title')}
        description={t('save.text', { version: ctx.version })}
        cancelLabel={t('save.cancel')}
        confirmLabel={t('action.save')}
        confirmDisabled={!state.can({ type: 'save.confirm' })}
        cancelDisabled={!state.can({ type: 'save.cancel' })}
        onCancel={() => send({ type: 'save.cancel' })}
        onConfirm={() => send({ type: 'save.confirm' })}
      />
      <ConfirmDialog
        open={state.matches({ versions: 'confirmingRevert' }) || state.matches('reverting')}
        title={t('revert.title', { version: ctx.revertTo ?? 0 })}
        description={t('revert.text')}
        cancelLabel={t('revert.cancel')}
        confirmLabel={t('revert.confirm')}
        confirmDisabled={!state.can({ type: 'revert.confirm' })}
        cancelDisabled={!state.can({ type: 'revert.cancel' })}
        onCancel={() => send({ type: 'revert.cancel' })}
        onConfirm={() => send({ type: 'revert.confirm' })}
      />
    </div>
  );
}
