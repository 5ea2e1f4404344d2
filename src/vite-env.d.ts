/// <reference types="vite/client" />
declare const __APP_VERSION__: string;

// A route module's component, split out by the router plugin (src/entries/private.ts).
declare module '*?tsr-split=component';
