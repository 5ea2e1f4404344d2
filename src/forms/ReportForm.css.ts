import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';
import { card } from '../styles/card.css.ts';
import { input } from '../styles/field.css.ts';

export const intro = style({ margin: '0 0 24px', maxWidth: 720 });

export const step = style([card, { scrollMarginTop: `calc(${vars.size.topBar} + 16px)` }]);
export const stepInvalid = style({ boxShadow: `0 0 0 2px ${vars.color.error}` });
/**
 * One layout for every step header, whatever the title's length, the language or the
 * width: the counter on its own line above the title (it follows the title in the
 * DOM, so a screen reader hears the title first).
 */
export const stepHeading = style({
  display: 'flex',
  flexDirection: 'column-reverse',
  alignItems: 'flex-start',
  gap: 2,
  fontSize: '1.25rem',
  margin: '0 0 12px',
  outline: 'none',
  // The heading is what the validation dialog scrolls to: clear of the sticky top bar.
  scrollMarginTop: `calc(${vars.size.topBar} + 16px)`,
});
export const stepTitle = style({ minWidth: 0, overflowWrap: 'break-word' });
export const counter = style({ fontSize: '0.875rem', fontWeight: 400, color: vars.color.textMuted });

export const field = style({ display: 'flex', flexDirection: 'column', gap: 4, marginBottom: 14, maxWidth: 640 });
export const label = style({ fontWeight: 600 });
export const required = style({ color: vars.color.error, marginLeft: 2 });
/** The last word of a required label and its asterisk: they wrap together. */
export const keepTogether = style({ whiteSpace: 'nowrap' });
export { input };
export const textarea = style([input, { minHeight: 120, resize: 'vertical' }]);
export const hint = style({ fontSize: '0.875rem', color: vars.color.textMuted, margin: 0 });
export const error = style({ fontSize: '0.875rem', color: vars.color.error, margin: 0, fontWeight: 600 });
/** A hint that warns (the description nearing its limit): dark text on the warning colour. */
export const warning = style({
  fontSize: '0.875rem',
  margin: 0,
  background: vars.color.warning,
  color: vars.color.onWarning,
  padding: '2px 6px',
  borderRadius: vars.radius.small,
});
export const passwordRow = style({ display: 'flex', gap: 8, alignItems: 'stretch', minWidth: 0 });
// The field shrinks to leave room for the toggle on a 320 px phone.
globalStyle(`${passwordRow} > input`, { flex: '1 1 auto', minWidth: 0, width: 'auto' });
export const passwordToggle = style({
  font: 'inherit',
  fontSize: '0.875rem',
  minWidth: 44,
  minHeight: 44,
  padding: '0 10px',
  background: 'none',
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  color: vars.color.link,
  cursor: 'pointer',
  // Its words stay whole ("Vis adgangskode", not "adgangsko / de"): the field beside it shrinks instead.
  flex: '0 0 auto',
  whiteSpace: 'nowrap',
});
export const notice = style({
  background: vars.color.warning,
  color: vars.color.onWarning,
  padding: '8px 12px',
  borderRadius: vars.radius.small,
  margin: '8px 0',
});

export const fieldset = style({ border: 0, padding: 0, margin: '0 0 14px', minWidth: 0 });
export const legend = style({ fontWeight: 600, padding: 0, marginBottom: 6 });
export const choices = style({ display: 'flex', flexWrap: 'wrap', gap: 8 });
export const choice = style({
  display: 'flex',
  alignItems: 'center',
  gap: 8,
  minHeight: 44,
  padding: '8px 14px',
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  cursor: 'pointer',
  selectors: { '&:has(input:disabled)': { opacity: 0.6, cursor: 'not-allowed' } },
});
export const officers = style({ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(240px, 1fr))', gap: 10 });
export const officer = style([choice, { alignItems: 'flex-start' }]);
export const officerBody = style({ display: 'flex', flexDirection: 'column', gap: 8, minWidth: 0 });
export const officerText = style({ display: 'flex', flexDirection: 'column', overflowWrap: 'anywhere' });
/**
 * Logos are often wide (a mark and a name): 48 px high and up to the card's width, so
 * the name stays readable, on a white plate so a dark logo keeps its contrast on any
 * company colour.
 */
const logoPlate = {
  display: 'block',
  width: 'auto',
  maxWidth: '100%',
  objectFit: 'contain',
  objectPosition: 'left center',
  background: '#ffffff',
  padding: 4,
  borderRadius: vars.radius.small,
  boxSizing: 'border-box',
} as const;
export const officerLogo = style({ ...logoPlate, height: 56, minWidth: 56 });
export const officerLogoLarge = style({ ...logoPlate, height: 72, minWidth: 72 });
/** The one officer, shown (not offered as a choice) as who receives the report. */
export const receiver = style({
  display: 'flex',
  padding: '12px 14px',
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  maxWidth: 480,
});

export const persons = style({ listStyle: 'none', padding: 0, margin: '0 0 12px' });
export const person = style({
  display: 'flex',
  justifyContent: 'space-between',
  alignItems: 'center',
  gap: 8,
  padding: '8px 0',
  borderBottom: `1px solid ${vars.color.border}`,
});

export const linkButton = style({
  font: 'inherit',
  background: 'none',
  border: 0,
  padding: '4px 8px',
  // Tap targets of at least 44 × 44 px (WCAG 2.5.5), also for "Remove".
  minHeight: 44,
  minWidth: 44,
  color: vars.color.link,
  textDecoration: 'underline',
  cursor: 'pointer',
});
export const actions = style({ display: 'flex', flexWrap: 'wrap', gap: 12, marginTop: 16 });

export const dropZone = style({
  border: `2px dashed ${vars.color.border}`,
  borderRadius: vars.radius.large,
  padding: 20,
  textAlign: 'center',
  selectors: { '&[data-over="true"]': { borderColor: vars.color.primary, background: vars.color.secondary } },
});
export const files = style({ listStyle: 'none', padding: 0, margin: '12px 0 0' });
export const file = style({ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr) auto', alignItems: 'center', gap: 8, padding: '6px 0' });
/** A long file name breaks anywhere rather than widening the page and pushing Remove off-screen. */
export const fileName = style({ minWidth: 0, overflowWrap: 'anywhere' });

export const sendRow = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 16, marginTop: 16 });
export const busy = style({ color: vars.color.textMuted });
/** Beside Send while sending: the status, then one bar for all the files, the width of the row. */
export const sendingStatus = style({ display: 'flex', flexDirection: 'column', gap: 6, flex: '1 1 240px', minWidth: 0 });
export const sendingBar = style({ width: '100%', height: 8 });

export const caseNumber = style({
  fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  fontSize: '1.5rem',
  fontWeight: 700,
  letterSpacing: '0.05em',
  margin: '8px 0',
});
export const copyRow = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 12 });
export const copied = style({ color: vars.color.text, fontWeight: 600 });

export const strength = style({ display: 'flex', alignItems: 'center', gap: 8, fontSize: '0.875rem' });
export const strengthBar = style({ width: 120, height: 6 });

/** The files not added, one a line with its reason; a long file name wraps (issue 42). */
export const rejectedFiles = style({ margin: 0, paddingLeft: 18, overflowWrap: 'anywhere' });
