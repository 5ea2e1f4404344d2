import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';
import { barButton } from './Pages.css.ts';

/** The top bar's "Keys" link, as tall and round as its buttons. */
export const barLink = style([barButton, { display: 'inline-flex', alignItems: 'center', textDecoration: 'none' }]);
export const fingerprint = style({ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: '1.0625rem', letterSpacing: '0.05em', overflowWrap: 'anywhere' });
export const recoveryKey = style({
  fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace',
  whiteSpace: 'pre-wrap',
  overflowWrap: 'anywhere',
  padding: 12,
  border: `1px solid ${vars.color.border}`,
  borderRadius: 8,
  background: '#ffffff',
  color: '#000000',
});
/** The link to the statistics page: a tap target of 44 px. */
export const pageLink = style({ display: 'inline-flex', alignItems: 'center', minHeight: 44 });
