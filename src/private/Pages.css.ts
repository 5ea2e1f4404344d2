import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';
import { input as baseInput } from '../styles/field.css.ts';
import { dialog } from '../styles/dialog.css.ts';

/** Spec §9: the progress display changes layout under 740 px. */
export const MOBILE = 'screen and (max-width: 739.98px)';

export const cardTitle = style({ fontSize: '1.2rem', margin: '0 0 12px' });
export const muted = style({ color: vars.color.textMuted });

export const banner = style({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  gap: 12,
  justifyContent: 'space-between',
  background: vars.color.warning,
  color: vars.color.onWarning,
  borderRadius: vars.radius.small,
  padding: '14px 18px',
  marginBottom: 16,
  fontWeight: 500,
});
export const bannerLink = style({ color: vars.color.onWarning, fontWeight: 700 });

export const warning = style({
  borderLeft: `6px solid ${vars.color.warning}`,
  background: vars.color.surface,
  padding: '12px 16px',
  marginBottom: 16,
});

export const progressTrack = style({
  position: 'relative',
  height: 10,
  borderRadius: 999,
  background: vars.color.secondary,
  border: `1px solid ${vars.color.border}`,
  overflow: 'hidden',
  margin: '8px 0 16px',
  '@media': { [MOBILE]: { display: 'none' } },
});
export const progressFill = style({ height: '100%', background: vars.color.primary });
export const steps = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(4, 1fr)',
  gap: 8,
  listStyle: 'none',
  margin: 0,
  padding: 0,
  '@media': { [MOBILE]: { gridTemplateColumns: '1fr', gap: 0 } },
});
export const step = style({
  display: 'flex',
  flexDirection: 'column',
  gap: 2,
  '@media': {
    [MOBILE]: {
      borderLeft: `4px solid ${vars.color.border}`,
      padding: '6px 0 10px 14px',
    },
  },
});
export const stepDone = style({
  fontWeight: 600,
  '@media': { [MOBILE]: { borderLeftColor: vars.color.primary } },
});
export const stepMark = style({
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  width: 28,
  height: 28,
  borderRadius: 999,
  border: `2px solid ${vars.color.primary}`,
  color: vars.color.primary,
  fontSize: '0.9rem',
  fontWeight: 700,
});
export const stepMarkDone = style({ background: vars.color.primary, color: vars.color.onPrimary });

export const collapsibleTrigger = style({
  display: 'flex',
  width: '100%',
  justifyContent: 'space-between',
  alignItems: 'center',
  gap: 12,
  background: 'none',
  border: 0,
  padding: 0,
  font: 'inherit',
  fontSize: '1.2rem',
  fontWeight: 600,
  color: vars.color.text,
  cursor: 'pointer',
  minHeight: 44,
  textAlign: 'left',
  selectors: { '&:disabled': { cursor: 'not-allowed', color: vars.color.textMuted } },
});
export const feedbackList = style({
  maxHeight: 290,
  overflowY: 'auto',
  listStyle: 'none',
  margin: '12px 0 0',
  padding: 0,
  borderTop: `1px solid ${vars.color.border}`,
});
export const feedbackItem = style({ padding: '10px 0', borderBottom: `1px solid ${vars.color.border}` });
export const clocks = style({ display: 'grid', gap: 12, gridTemplateColumns: 'repeat(auto-fit, minmax(240px, 1fr))' });
export const clockMet = style({ color: vars.color.text, fontWeight: 600 });
export const clockOverdue = style({ color: vars.color.error, fontWeight: 600 });

export const dl = style({ display: 'grid', gridTemplateColumns: 'minmax(140px, 220px) 1fr', gap: '8px 16px', margin: 0, '@media': { [MOBILE]: { gridTemplateColumns: '1fr' } } });
globalStyle(`${dl} dt`, { fontWeight: 600 });
globalStyle(`${dl} dd`, { margin: 0, whiteSpace: 'pre-line', overflowWrap: 'anywhere' });

export const field = style({ display: 'flex', flexDirection: 'column', gap: 6, marginBottom: 16 });
export const label = style({ fontWeight: 600 });
export const input = style([
  baseInput,
  {
    selectors: {
      '&[aria-invalid="true"]': { borderWidth: 2 },
      '&:disabled': { background: vars.color.secondary, color: vars.color.textMuted },
    },
  },
]);
export const textarea = style([input, { minHeight: 120, resize: 'vertical' }]);
export const error = style({ color: vars.color.error, fontWeight: 600, margin: '4px 0' });
export const success = style({ color: vars.color.text, fontWeight: 600, margin: '4px 0' });
export const actions = style({ display: 'flex', flexWrap: 'wrap', gap: 12, marginTop: 8 });
export const checkbox = style({ display: 'flex', alignItems: 'center', gap: 10, minHeight: 44 });

// Wider dialogs: on top of the shared dialog style whichever stylesheet loads last.
export const dialogWide = style({ selectors: { [`${dialog}&`]: { width: 'min(1216px, calc(100vw - 32px))' } } });
export const dialogApprove = style({ selectors: { [`${dialog}&`]: { width: 'min(816px, calc(100vw - 32px))' } } });

/** A number to dial: large, one line (a group never wraps), a 44 px target. */
export const phone = style({
  display: 'inline-flex',
  alignItems: 'center',
  minHeight: 44,
  fontSize: '1.4rem',
  fontWeight: 700,
  whiteSpace: 'nowrap',
  color: vars.color.primary,
});

/** The status page's timeline (spec §4 timeline descriptions): one entry a line, oldest first. */
export const timeline = style({ listStyle: 'none', margin: 0, padding: 0, display: 'grid', gap: 10 });
export const timelineEntry = style({ display: 'flex', flexDirection: 'column', gap: 2, borderLeft: `4px solid ${vars.color.primary}`, paddingLeft: 12, overflowWrap: 'break-word' });
