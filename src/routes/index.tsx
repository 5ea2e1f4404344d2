import { useEffect } from 'react';
import { createFileRoute, Link, useRouter } from '@tanstack/react-router';
import { assignInlineVars } from '@vanilla-extract/dynamic';
import { useT } from '../i18n/index.ts';
import { useLookAndFeel } from '../app/lookAndFeel.tsx';
import { Icon } from '../components/Icon.tsx';
import { useRouteFocus } from '../components/RouteFocus.tsx';
import { LOGIN_PATH } from '../components/Frame.tsx';
import * as styles from './-landing.css.ts';

export const Route = createFileRoute('/')({
  component: Landing,
});

// Self-made backgrounds, one per colour name of the front-page setting.
const backgrounds = import.meta.glob<string>('../assets/backgrounds/*.svg', { query: '?url', import: 'default', eager: true });
function backgroundFor(color: string): string | undefined {
  return backgrounds[`../assets/backgrounds/${color}.svg`] ?? backgrounds['../assets/backgrounds/blue.svg'];
}

type CardPath = '/online-form' | '/oral-report' | '/book-meeting' | '/ask-questions';
interface CardDef {
  id: string;
  icon: string;
  to: CardPath | typeof LOGIN_PATH;
}

function Card({ def }: { def: CardDef }) {
  const voiceOn = useLookAndFeel().voice?.enabled === true;
  const t = useT();
  const router = useRouter();
  const body = (
    <>
      <span className={styles.cardIcon}>
        <Icon name={def.icon} />
      </span>
      <h2 className={styles.cardTitle}>{t(`landing.cards.${def.id}.title`)}</h2>
      <p className={styles.cardText}>{t(`landing.cards.${def.id}.text`)}</p>
      <span className={styles.cardMore} aria-hidden="true">
        {t(`landing.cards.${def.id}.action`)}
        <Icon name="arrow" size={18} />
      </span>
    </>
  );
  if (def.to === LOGIN_PATH) {
    return (
      <a
        href={LOGIN_PATH}
        className={styles.card}
        data-card={def.id}
        onClick={(e) => {
          if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
          e.preventDefault();
          router.history.push(LOGIN_PATH);
        }}
      >
        {body}
      </a>
    );
  }
  return (
    // With voice messages on, the form opens as its own page: only that page's
    // Permissions-Policy lets it ask for the microphone (docs/decisions/voice-messages.md).
    <Link to={def.to} className={styles.card} data-card={def.id} reloadDocument={voiceOn && def.to === '/online-form'}>
      {body}
    </Link>
  );
}

function Landing() {
  const t = useT();
  const focusRef = useRouteFocus<HTMLHeadingElement>();
  const laf = useLookAndFeel();
  const fp = laf.siteFrontPage;
  const heading = fp.heading || t('landing.heading.default');
  useEffect(() => {
    document.title = heading;
  }, [heading]);

  const cards: CardDef[] = [
    { id: 'online', icon: 'report', to: '/online-form' },
    ...(fp.showVerbalOption ? [{ id: 'oral', icon: 'phone', to: '/oral-report' as const }] : []),
    ...(fp.showBookingOption ? [{ id: 'meeting', icon: 'calendar', to: '/book-meeting' as const }] : []),
    { id: 'ask', icon: 'question', to: '/ask-questions' },
    { id: 'case', icon: 'login', to: LOGIN_PATH },
  ];
  const bg = backgroundFor(fp.backgroundImageColor);

  return (
    <>
      <section
        className={styles.hero}
        data-background={fp.backgroundImageColor}
        style={assignInlineVars({ [styles.heroImage]: bg ? `url("${bg}")` : 'none' })}
      >
        <div className={styles.heroPanel}>
          <h1 ref={focusRef} className={styles.heading}>
            {heading}
          </h1>
          <p className={styles.subHeading}>{fp.subHeading || t('landing.subHeading.default')}</p>
          {(fp.paragraph || !fp.heading) && <p className={styles.paragraph}>{fp.paragraph || t('landing.paragraph.default')}</p>}
          <p className={styles.paragraph} data-testid="quick-exit-help">
            {t('landing.quickExit')}
          </p>
        </div>
      </section>
      <ul className={styles.cards} aria-label={t('landing.cards.label')}>
        {cards.map((c) => (
          <li key={c.id}>
            <Card def={c} />
          </li>
        ))}
      </ul>
    </>
  );
}
