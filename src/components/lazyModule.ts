/**
 * A module loaded after first paint without suspending: the component renders
 * without it (or a placeholder) and re-renders once it has arrived. Unlike
 * React.lazy, nothing suspends, so a flow's first screen never waits on a part it
 * does not show yet (the report form's dialogs, the phone input).
 */
import { useEffect, useState } from 'react';

export interface LazyModule<M> {
  /** Starts loading (once); resolves with the module. */
  load(): Promise<M>;
  /** The module once loaded. */
  readonly current: M | undefined;
}

export function lazyModule<M>(importer: () => Promise<M>): LazyModule<M> {
  let current: M | undefined;
  let loading: Promise<M> | undefined;
  return {
    load: () =>
      (loading ??= importer().then(
        (m) => (current = m),
        (err: unknown) => {
          loading = undefined; // a failed chunk load may be retried
          throw err;
        },
      )),
    get current() {
      return current;
    },
  };
}

/** The module, loading it after mount when `wanted`; undefined until it is there. */
export function useLazyModule<M>(mod: LazyModule<M>, wanted = true): M | undefined {
  const [, setLoaded] = useState(0);
  useEffect(() => {
    if (!wanted || mod.current) return;
    let live = true;
    mod.load().then(
      () => live && setLoaded((n) => n + 1),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [mod, wanted]);
  return mod.current;
}
