/** Styles of the record editor's conflict panel and kept text (RecordEditorControls.tsx). */
import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const conflict = style({
  border: `2px solid ${vars.color.error}`,
  borderRadius: vars.radius.large,
  padding: '16px 20px',
  display: 'flex',
  flexDirection: 'column',
  gap: 12,
});
export const conflictTitle = style({ fontSize: '1.125rem', margin: 0, outline: 'none' });
/** The two texts side by side where there is room, one above the other on a phone. */
export const texts = style({ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 280px), 1fr))', gap: 16 });
export const text = style({
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  padding: '10px 12px',
  maxHeight: 360,
  overflow: 'auto',
});
export const textTitle = style({ fontSize: '1rem', margin: 0 });
export const kept = style({ minHeight: 100, resize: 'vertical' });
export const download = style({ display: 'inline-flex', alignItems: 'center', minHeight: 44, textDecoration: 'none', marginTop: 6 });
