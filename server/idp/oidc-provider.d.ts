// oidc-provider ships no types; the parts of its API we use are typed loosely here.
declare module 'oidc-provider' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const Provider: any;
  export default Provider;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  export const errors: any;
}
