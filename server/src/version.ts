import serverPackage from '../package.json' with { type: 'json' };

/** The product name and the server package's version (landing page, banner, OpenAPI `info`). */
export const PRODUCT_NAME = 'Planwarden';
export const VERSION: string = serverPackage.version;
