import { createVar, style } from '@vanilla-extract/css';
import { vars, NARROW } from '../styles/theme.css.ts';

export const heroImage = createVar();

export const hero = style({
  backgroundColor: vars.color.primary,
  backgroundImage: `${heroImage}, linear-gradient(135deg, ${vars.color.secondary} 0%, ${vars.color.primary} 75%)`,
  backgroundSize: 'cover, auto',
  backgroundPosition: 'center bottom, center',
  padding: '56px 20px 96px',
  '@media': { [NARROW]: { padding: '28px 16px 64px' } },
});
export const heroPanel = style({
  maxWidth: 760,
  margin: '0 auto',
  padding: '28px 32px',
  background: vars.color.surface,
  color: vars.color.text,
  borderRadius: vars.radius.large,
  boxShadow: vars.shadow.card,
  '@media': { [NARROW]: { padding: '20px' } },
});
// Small enough on a phone for a long Danish compound ("Whistleblowerordning") to fit
// whole on a 375 px line: hyphens: auto needs a dictionary not every browser has.
export const heading = style({ fontSize: 'clamp(1.5rem, 6.2vw, 2.75rem)', margin: '0 0 8px', color: vars.color.primary });
export const subHeading = style({ fontSize: 'clamp(1.125rem, 2.6vw, 1.4rem)', fontWeight: 600, margin: '0 0 12px' });
export const paragraph = style({ margin: 0, whiteSpace: 'pre-line' });

export const cards = style({
  listStyle: 'none',
  maxWidth: vars.size.content,
  margin: '-56px auto 0',
  padding: '0 20px 56px',
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(200px, 1fr))',
  gap: 16,
  '@media': { [NARROW]: { marginTop: -40 } },
});
export const card = style({
  overflowWrap: 'break-word',
  hyphens: 'auto',
  minWidth: 0,
  display: 'flex',
  flexDirection: 'column',
  gap: 8,
  height: '100%',
  padding: '20px',
  background: vars.color.surface,
  color: vars.color.text,
  borderRadius: vars.radius.large,
  boxShadow: vars.shadow.card,
  textDecoration: 'none',
  border: `2px solid transparent`,
  selectors: { '&:hover': { borderColor: vars.color.primary } },
});
export const cardIcon = style({
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  width: 48,
  height: 48,
  borderRadius: 999,
  background: vars.color.primary,
  color: vars.color.onPrimary,
});
export const cardTitle = style({ fontSize: '1.125rem', fontWeight: 700, margin: 0 });
export const cardText = style({ margin: 0, color: vars.color.textMuted, flex: 1 });
export const cardMore = style({ display: 'inline-flex', flexWrap: 'wrap', alignItems: 'center', gap: 6, fontWeight: 600, color: vars.color.link });
