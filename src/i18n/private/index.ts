import { registerCatalogues } from '../index.ts';

registerCatalogues('private', import.meta.glob('./*.json', { import: 'default' }));
