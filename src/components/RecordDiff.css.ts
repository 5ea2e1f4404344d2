import { style } from '@vanilla-extract/css';

export const diff = style({ whiteSpace: 'pre-line', lineHeight: 1.6 });
// Fixed colours, not the company's: both keep 7:1 contrast on their own background.
export const added = style({ background: '#d8f5dd', color: '#0b3d17', textDecoration: 'underline' });
export const removed = style({ background: '#fbe0e0', color: '#5c0b0b', textDecoration: 'line-through' });
