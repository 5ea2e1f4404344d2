import { createFileRoute } from '@tanstack/react-router';
import * as Accordion from '@radix-ui/react-accordion';
import { useT } from '../i18n/index.ts';
import { useLookAndFeel } from '../app/lookAndFeel.tsx';
import { Page, PageTitle } from '../components/PageTitle.tsx';
import { Icon } from '../components/Icon.tsx';
import * as styles from './-pages.css.ts';

export const Route = createFileRoute('/faq')({
  component: Faq,
});

function Faq() {
  const t = useT();
  const { siteFAQPage } = useLookAndFeel();
  return (
    <Page>
      <PageTitle title={siteFAQPage.heading || t('faq.title')} />
      {siteFAQPage.faqs.length === 0 ? (
        <p>{t('faq.empty')}</p>
      ) : (
        <Accordion.Root type="multiple" className={styles.accordion}>
          {siteFAQPage.faqs.map((f, i) => (
            <Accordion.Item key={i} value={String(i)} className={styles.item}>
              <Accordion.Header asChild>
                <h2 className={styles.header}>
                  <Accordion.Trigger className={styles.trigger}>
                    {f.heading}
                    <Icon name="chevron" size={20} />
                  </Accordion.Trigger>
                </h2>
              </Accordion.Header>
              <Accordion.Content className={styles.content}>
                <p className={styles.contentInner}>{f.paragraph}</p>
              </Accordion.Content>
            </Accordion.Item>
          ))}
        </Accordion.Root>
      )}
    </Page>
  );
}
