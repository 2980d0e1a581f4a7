import { Menu, shell, type MenuItemConstructorOptions } from 'electron';

/** The application menu: File › Open… (a plan or a diff), the standard Edit/View/Window roles, Help links in the browser. */
export function buildMenu(actions: { open: () => Promise<void> }): Menu {
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { label: 'File', submenu: [{ label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => void actions.open() }, { type: 'separator' }, { role: 'quit' }] },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        { role: 'toggleDevTools' },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ label: 'Install Ollama', click: () => void shell.openExternal('https://ollama.com/download') }] },
  ];
  return Menu.buildFromTemplate(template);
}
