import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

/** The picker sits above the message text, set apart so it reads as a tool, not a field of the message. */
export const picker = style({ border: `1px dashed ${vars.color.border}`, borderRadius: vars.radius.small, padding: '10px 12px', display: 'flex', flexDirection: 'column', gap: 8 });
export const row = style({ display: 'flex', gap: 8, flexWrap: 'wrap', alignItems: 'stretch' });
