import { useEffect, type ReactNode } from 'react';
import * as styles from './Page.css.ts';
import { card } from '../styles/card.css.ts';
import { useRouteFocus } from './RouteFocus.tsx';

/** The page's <h1>, also written into document.title. */
export function PageTitle({ title, children }: { title: string; children?: ReactNode }) {
  const focusRef = useRouteFocus<HTMLHeadingElement>();
  useEffect(() => {
    document.title = title;
  }, [title]);
  return (
    <header className={styles.pageHeader}>
      <h1 ref={focusRef} className={styles.title}>
        {title}
      </h1>
      {children}
    </header>
  );
}

export function Page({ children }: { children: ReactNode }) {
  return <div className={styles.page}>{children}</div>;
}

/** Sections of heading + paragraph; line breaks in the paragraph are kept. */
export function TextSections({ sections }: { sections: ReadonlyArray<{ heading: string; paragraph: string }> }) {
  return (
    <>
      {sections.map((s, i) => (
        <section key={i} className={card}>
          <h2 className={styles.sectionHeading}>{s.heading}</h2>
          <p className={styles.paragraph}>{s.paragraph}</p>
        </section>
      ))}
    </>
  );
}
