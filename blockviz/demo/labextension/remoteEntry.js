// The demo's JupyterLab extension, prebuilt (federated) without a build step: no shared modules, one
// plugin that uses only the application object. When a notebook whose metadata has blockviz.autorun
// becomes current, it waits for the kernel and runs every cell once. demo/server.py copies this file
// into the demo folder's labextensions.
var _JUPYTERLAB;
(function () {
  "use strict";
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const plugin = {
    id: "blockviz-demo:autorun",
    description: "Runs the blockviz demo notebook once its kernel is ready.",
    autoStart: true,
    activate: (app) => {
      const started = new WeakSet();
      const check = async () => {
        const panel = app.shell.currentWidget;
        if (!panel || started.has(panel) || !panel.context || !panel.sessionContext || !panel.content) return;
        await panel.context.ready;
        const model = panel.content.model;
        const meta = model && (model.getMetadata ? model.getMetadata("blockviz") : (model.metadata || {}).blockviz);
        if (!meta || !meta.autorun || started.has(panel)) return;
        started.add(panel);
        if (app.shell.collapseLeft) app.shell.collapseLeft();
        await panel.sessionContext.ready;
        for (let i = 0; i < 1200 && !panel.sessionContext.isReady; i++) await sleep(100);
        if (app.shell.currentWidget !== panel) app.shell.activateById(panel.id);
        await app.commands.execute("notebook:run-all-cells");
      };
      app.restored.then(() => {
        if (app.shell.currentChanged) app.shell.currentChanged.connect(() => { check(); });
        check();
      });
    },
  };
  _JUPYTERLAB = typeof _JUPYTERLAB === "undefined" ? {} : _JUPYTERLAB;
  _JUPYTERLAB["blockviz-demo"] = {
    init: () => Promise.resolve(),
    get: (module) => Promise.resolve(() => ({ __esModule: true, default: [plugin] })),
  };
})();
