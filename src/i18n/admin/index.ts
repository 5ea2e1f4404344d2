import { registerCatalogues } from '../index.ts';

registerCatalogues('admin', import.meta.glob('./*.json', { import: 'default' }));
