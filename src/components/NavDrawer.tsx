/** The side drawer under 1111 px: Radix Dialog, children expand with Radix Collapsible. */
import type { RefObject } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import * as Collapsible from '@radix-ui/react-collapsible';
import { useT, type Language } from '../i18n/index.ts';
import type { NavItem } from './navigation.ts';
import { PathLink } from './NavLink.tsx';
import { Icon } from './Icon.tsx';
import { LanguageSelect } from './LanguageSelect.tsx';
import { useResumeRouteFocus } from './RouteFocus.tsx';
import { LoginLink } from './Frame.tsx';
import * as styles from './NavDrawer.css.ts';
import * as dialogs from '../styles/dialog.css.ts';

export default function NavDrawer({
  items,
  languages,
  showLogin,
  open,
  onOpenChange,
  returnFocusTo,
  actionsRef,
}: {
  items: NavItem[];
  languages?: readonly Language[];
  showLogin: boolean;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  returnFocusTo: RefObject<HTMLButtonElement | null>;
  /** Where FrameMenuActions render (the private area's Log out). */
  actionsRef?: (el: HTMLDivElement | null) => void;
}) {
  const t = useT();
  const close = () => onOpenChange(false);
  const resumeRouteFocus = useResumeRouteFocus();
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className={dialogs.overlay} />
        <Dialog.Content
          className={styles.content}
          aria-describedby={undefined}
          onCloseAutoFocus={(e) => {
            e.preventDefault();
            // After choosing a page, the focus goes to that page's heading, not back to the menu.
            if (!resumeRouteFocus()) returnFocusTo.current?.focus();
          }}
        >
          <div className={styles.head}>
            <Dialog.Title className={styles.title}>{t('frame.menu')}</Dialog.Title>
            <Dialog.Close className={styles.close} aria-label={t('frame.closeMenu')}>
              <Icon name="close" />
            </Dialog.Close>
          </div>
          <nav aria-label={t('frame.mainNavigation')}>
            <ul className={styles.list}>
              {items.map((item) => (
                <li key={item.to + item.text}>
                  {item.children.length === 0 ? (
                    <PathLink to={item.to} className={styles.link} onClick={close}>
                      <Icon name={item.icon} size={20} />
                      {item.text}
                    </PathLink>
                  ) : (
                    <Collapsible.Root>
                      <div className={styles.row}>
                        <PathLink to={item.to} className={styles.link} onClick={close}>
                          <Icon name={item.icon} size={20} />
                          {item.text}
                        </PathLink>
                        <Collapsible.Trigger className={styles.toggle} aria-label={t('frame.showSubpages', { page: item.text })}>
                          <Icon name="chevron" size={20} />
                        </Collapsible.Trigger>
                      </div>
                      <Collapsible.Content>
                        <ul className={styles.children}>
                          {item.children.map((c) => (
                            <li key={c.to + c.text}>
                              <PathLink to={c.to} className={styles.link} onClick={close}>
                                {c.text}
                              </PathLink>
                            </li>
                          ))}
                        </ul>
                      </Collapsible.Content>
                    </Collapsible.Root>
                  )}
                </li>
              ))}
            </ul>
          </nav>
          <div className={styles.footer}>
            <LanguageSelect languages={languages} />
            {showLogin && <LoginLink onNavigate={close} />}
            <div ref={actionsRef} className={styles.actions} />
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
