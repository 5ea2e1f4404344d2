import { style } from '@vanilla-extract/css';

export const loading = style({ minHeight: '60vh' });
