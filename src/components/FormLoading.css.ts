import { style } from '@vanilla-extract/css';

/**
 * As tall as the screen: the form that replaces it is taller, so the footer starts
 * below the fold and nothing in view moves when the form arrives (Lighthouse's
 * layout shift on /online-form was the footer pushed down).
 */
export const loading = style({ minHeight: '100vh' });
