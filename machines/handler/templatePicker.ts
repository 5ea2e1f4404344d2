/**
 * Reply templates in the handler's composer (issue 38 Build 7,
 * docs/decisions/reply-templates.md): the company's templates are loaded once, the
 * handler picks one, and its text in the reporter's language (else the company's
 * default) goes into the message text. Beside both composers (the server-keyed case's,
 * machines/handler/composer.ts, and the sealed case's, machines/handler/sealedCase.ts):
 * it only hands a text to `insertText`, which the view passes on as the composer's
 * `text.change`, so the message is sent (and on a sealed case sealed) as any other.
 *
 * Invariants:
 * - Nothing the handler typed is replaced or added to without a confirmation: with typed
 *   text, `template.insert` goes to `confirming` (a controlled AlertDialog), and only
 *   `insert.replace` or `insert.append` there calls `insertText`.
 * - `insert.append` only when the joined text stays within the message limit.
 * - The inserted text is the chosen template's, in `templateLanguage(...)`.
 * - A 401 reports `reportUnauthorized` (the session chart signs out) and ends `failed`.
 */
import { and, assign, fromPromise, not, setup, type DoneActorEvent } from 'xstate';
import { templateLanguage, type Language, type ReplyTemplate } from '../schema.ts';

export interface TemplatesAnswer {
  status: number;
  templates?: ReplyTemplate[];
  languages?: Language[];
  defaultLanguage?: Language;
}

export interface TemplatePickerContext {
  reporterLanguage: string | null;
  /** The composer's limit, to refuse an append that would pass it. */
  max: number;
  templates: ReplyTemplate[];
  languages: Language[];
  defaultLanguage: Language;
  chosenId: string | null;
  /** What the composer held when the handler asked to insert. */
  typed: string;
  /** The text handed to the composer by `insertText`. */
  inserted: string;
}

export type TemplatePickerEvent =
  | { type: 'template.choose'; id: string }
  | { type: 'template.insert'; text: string }
  | { type: 'insert.replace' }
  | { type: 'insert.append' }
  | { type: 'insert.cancel' }
  | { type: 'retry' };

/** The language the picker inserts in, for the view to name. */
export const pickerLanguage = (c: Pick<TemplatePickerContext, 'reporterLanguage' | 'languages' | 'defaultLanguage'>): Language => templateLanguage(c.reporterLanguage, c.languages, c.defaultLanguage);

/** The chosen template's text in the picker's language (its default language's if that one is missing). */
export function chosenText(c: TemplatePickerContext): string {
  const t = c.templates.find((x) => x.id === c.chosenId);
  if (!t) return '';
  return t.texts[pickerLanguage(c)] ?? t.texts[c.defaultLanguage] ?? '';
}

const joined = (typed: string, text: string) => `${typed.trimEnd()}\n\n${text}`;
const out = (event: unknown) => (event as DoneActorEvent<TemplatesAnswer>).output;

export const templatePickerMachine = setup({
  types: {} as { context: TemplatePickerContext; events: TemplatePickerEvent; input: { reporterLanguage: string | null; max: number } },
  actors: {
    loadTemplates: fromPromise<TemplatesAnswer, void>(async () => {
      throw new Error('loadTemplates not provided');
    }),
  },
  actions: {
    insertText: () => {},
    reportUnauthorized: () => {},
    assignTemplates: assign(({ event }) => {
      const a = out(event);
      return { templates: a.templates ?? [], languages: a.languages ?? [], defaultLanguage: a.defaultLanguage ?? 'da' };
    }),
    assignChosen: assign({ chosenId: ({ event, context }) => (event.type === 'template.choose' ? event.id : context.chosenId) }),
    assignTyped: assign({ typed: ({ event, context }) => (event.type === 'template.insert' ? event.text : context.typed) }),
    assignReplacement: assign({ inserted: ({ context }) => chosenText(context) }),
    assignJoined: assign({ inserted: ({ context }) => joined(context.typed, chosenText(context)) }),
  },
  guards: {
    isLoaded: ({ event }) => out(event).status === 200,
    isUnauthorizedAnswer: ({ event }) => out(event).status === 401,
    isTemplateChosen: ({ context }) => context.templates.some((t) => t.id === context.chosenId),
    isKnownTemplate: ({ context, event }) => event.type === 'template.choose' && context.templates.some((t) => t.id === event.id),
    hasTypedText: ({ event }) => event.type === 'template.insert' && event.text.trim() !== '',
    hasRoomToAppend: ({ context }) => joined(context.typed, chosenText(context)).length <= context.max,
  },
}).createMachine({
  id: 'templatePicker',
  initial: 'loading',
  context: ({ input }) => ({ reporterLanguage: input.reporterLanguage, max: input.max, templates: [], languages: [], defaultLanguage: 'da', chosenId: null, typed: '', inserted: '' }),
  states: {
    loading: {
      invoke: {
        id: 'loadTemplates',
        src: 'loadTemplates',
        onDone: [
          { guard: 'isLoaded', target: 'ready', actions: 'assignTemplates' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: { target: 'failed' },
      },
    },
    failed: {
      on: { retry: { target: 'loading' } },
    },
    ready: {
      initial: 'choosing',
      states: {
        choosing: {
          on: {
            'template.choose': { guard: 'isKnownTemplate', actions: 'assignChosen' },
            'template.insert': [
              { guard: and(['isTemplateChosen', not('hasTypedText')]), actions: ['assignReplacement', 'insertText'] },
              { guard: 'isTemplateChosen', target: 'confirming', actions: 'assignTyped' },
            ],
          },
        },
        confirming: {
          on: {
            'insert.replace': { target: 'choosing', actions: ['assignReplacement', 'insertText'] },
            'insert.append': { guard: 'hasRoomToAppend', target: 'choosing', actions: ['assignJoined', 'insertText'] },
            'insert.cancel': { target: 'choosing' },
          },
        },
      },
    },
  },
});
