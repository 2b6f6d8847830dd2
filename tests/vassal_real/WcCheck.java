import java.awt.Component;
import java.awt.Container;
import java.awt.Dialog;
import java.awt.Frame;
import java.awt.Graphics2D;
import java.awt.Point;
import java.awt.Rectangle;
import java.awt.Robot;
import java.awt.Window;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipFile;

import javax.imageio.ImageIO;
import javax.swing.AbstractButton;
import javax.swing.JComponent;
import javax.swing.JFrame;
import javax.swing.JToolBar;
import javax.swing.SwingUtilities;
import javax.swing.text.JTextComponent;

import org.apache.commons.codec.digest.DigestUtils;

import VASSAL.Info;
import VASSAL.build.GameModule;
import VASSAL.build.module.DiceButton;
import VASSAL.build.module.GameSetupStep;
import VASSAL.build.module.GameState;
import VASSAL.build.module.Map;
import VASSAL.build.module.PieceWindow;
import VASSAL.build.module.PrototypeDefinition;
import VASSAL.build.module.map.DrawPile;
import VASSAL.build.module.map.SetupStack;
import VASSAL.build.module.map.boardPicker.Board;
import VASSAL.build.module.map.boardPicker.board.HexGrid;
import VASSAL.build.module.map.boardPicker.board.MapGrid;
import VASSAL.build.module.map.boardPicker.board.Region;
import VASSAL.build.module.map.boardPicker.board.RegionGrid;
import VASSAL.build.module.turn.TurnTracker;
import VASSAL.build.widget.PieceSlot;
import VASSAL.command.AddPiece;
import VASSAL.command.Command;
import VASSAL.configure.ValidationReport;
import VASSAL.counters.Decorator;
import VASSAL.counters.GamePiece;
import VASSAL.counters.KeyCommand;
import VASSAL.counters.PieceCloner;
import VASSAL.counters.Stack;
import VASSAL.counters.UsePrototype;
import VASSAL.launch.Player;
import VASSAL.launch.TilingHandler;
import VASSAL.i18n.Localization;

/**
 * Warcodex's check of an exported module in a real VASSAL 3.7 (derived from the shared harness in
 * ../shared/tools/vassal/harness/WcHarness.java; tests/vassal_real/harness.py runs it under Xvfb).
 *
 * Loads a .vmod the way VASSAL's Player does (tile slicing, GameModule.init, extensions,
 * translation, player window), runs the editor's validation, decodes every PieceSlot, starts a
 * New Game, and reports - as lines "WC <KIND> <tab-separated fields>" that the Python side parses:
 *   PIECE map, location, name          every piece on every map after the New Game (or the save)
 *   EXPECT map, location, name         every piece an at-start stack or deck holds
 *   DECK map, name, face down, drawn face up, cards   every deck (DrawPile) as VASSAL set it up
 *   HEX id, HexGrid name, Map name, getLocation ok   every hex of HEX.tsv
 *   REGION name, round trip ok         every Region of a RegionGrid
 *   TURN text                          the turn tracker: its opening state, then after each Next
 *   CHAT text                          the chat log (dice reports, step reports, load messages)
 *   SLOT name, decoded                 every PieceSlot, decoded as VASSAL decodes a module's slots
 *   VALIDATION text                    the editor's validation warnings
 *   PROBLEM text                       anything that failed (exceptions, dialogs left open...)
 *   UNCAUGHT text                      an uncaught exception in any thread
 * VASSAL's own log lines start with "LOG <LEVEL>".
 *
 * Usage: WcCheck OUT_DIR TAG [--hex HEX.tsv] [--save GAME.vsav|.vlog] [--steps N] [--turns N] [--dice]
 *                [--dump FILE] [--no-tiles] [--screenshots] --load MODULE.vmod
 * (--no-tiles: skip the ModuleManager's tile slicing, which only checks the images and feeds painting)
 */
public class WcCheck {
  static File outDir;
  static String tag;
  static String hexTsv;
  static File saveFile;
  static int turnSteps = 0;
  static boolean rollDice = false;
  static boolean screenshots = false;
  static File dumpFile;
  static int logSteps = 0;
  static boolean tiles = true;
  static String modulePath;
  static final AtomicInteger uncaught = new AtomicInteger();
  static Throwable launchError;
  static final java.util.Set<Window> expectedWindows = new java.util.HashSet<>();
  static PrintStream out;

  static void say(String kind, String... fields) {
    final StringBuilder b = new StringBuilder("WC ").append(kind);
    for (final String f : fields) b.append('\t').append(f == null ? "" : f.replace('\t', ' ').replace('\n', ' '));
    out.println(b);
    out.flush();
  }

  static final long T0 = System.currentTimeMillis();

  /** How long the check has run, at a milestone (the CI time of this tier). */
  static void milestone(String what) {
    say("TIME", what, String.valueOf(System.currentTimeMillis() - T0));
  }

  static void problem(String s) {
    say("PROBLEM", s);
  }

  /** The Player, with launch() as Player.launch() for a module without a saved game, minus the wizard. */
  static class CheckPlayer extends Player {
    CheckPlayer(String[] args) {
      super(args);
    }

    @Override
    protected void launch() throws IOException {
      try {
        GameModule.init(createModule(createDataArchive()));
        say("INFO", "GameModule.init OK: " + GameModule.getGameModule().getGameName() + " "
            + GameModule.getGameModule().getGameVersion());
        createExtensionsLoader().addTo(GameModule.getGameModule());
        Localization.getInstance().translate();
        GameModule.getGameModule().getPlayerWindow().setVisible(true);
      }
      catch (Throwable t) {
        launchError = t;
        t.printStackTrace(out);
      }
    }
  }

  /** TilingHandler as the ModuleManager uses it, with a progress handler that needs no manager window. */
  static class QuietTilingHandler extends TilingHandler {
    QuietTilingHandler(String aname, File cdir) {
      super(aname, cdir, new java.awt.Dimension(256, 256), 2048);
    }

    @Override
    protected StateMachineHandler createStateMachineHandler(int tcount, java.util.concurrent.Future<Integer> fut) {
      return new StateMachineHandler() {
        @Override public void handleStart() { }
        @Override public void handleStartingImageState(String in) { }
        @Override public void handleTileWrittenState() { }
        @Override public void handleTilingFinishedState() { }
        @Override public void handleSuccess() { say("INFO", "tiler: " + tcount + " tiles written"); }
        @Override public void handleFailure() { problem("tiler: failure"); }
      };
    }
  }

  public static void main(String[] args) throws Exception {
    out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    outDir = new File(args[0]);
    tag = args[1];
    final List<String> launcherArgs = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      switch (args[i]) {
        case "--hex": hexTsv = args[++i]; break;
        case "--save": saveFile = new File(args[++i]).getAbsoluteFile(); break;
        case "--turns": turnSteps = Integer.parseInt(args[++i]); break;
        case "--dice": rollDice = true; break;
        case "--screenshots": screenshots = true; break;
        case "--dump": dumpFile = new File(args[++i]).getAbsoluteFile(); break;
        case "--steps": logSteps = Integer.parseInt(args[++i]); break;
        case "--no-tiles": tiles = false; break;
        case "--load":
          modulePath = new File(args[++i]).getAbsolutePath();
          launcherArgs.add("--load");
          launcherArgs.add(modulePath);
          break;
        default: throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    outDir.mkdirs();
    startWatchdog(Long.getLong("wc.timeout", 240) * 1000L);
    Info.setConfig(new VASSAL.launch.StandardConfig());

    // What the ModuleManager does before it launches the Player: slice the map tiles.
    try (ZipFile zf = new ZipFile(modulePath)) {
      final VASSAL.build.module.metadata.ModuleMetaData meta = new VASSAL.build.module.metadata.ModuleMetaData(zf);
      if (Info.isModuleTooNew(meta.getVassalVersion()) || Info.hasOldFormat(meta.getVassalVersion())
          || !VASSAL.launch.Launcher.checkModuleLoadable(meta)) {
        problem("VASSAL refuses module metadata: VassalVersion " + meta.getVassalVersion());
      }
      final String hstr = DigestUtils.sha1Hex(meta.getName() + "_" + meta.getVersion());
      if (tiles) new QuietTilingHandler(modulePath, new File(Info.getCacheDir(), "tiles/" + hstr)).sliceTiles();
    }
    catch (Throwable t) {
      problem("tile slicing failed: " + t);
      t.printStackTrace(out);
    }

    milestone("tiles sliced");
    // The Player: Launcher(args) starts the error log, sets up the menus and runs launch() on the EDT.
    new CheckPlayer(launcherArgs.toArray(new String[0]));
    final Thread.UncaughtExceptionHandler vassalHandler = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((th, e) -> {
      uncaught.incrementAndGet();
      say("UNCAUGHT", th.getName() + ": " + e);
      e.printStackTrace(out);
      if (vassalHandler != null) vassalHandler.uncaughtException(th, e);
    });
    if (launchError != null) {
      problem("module did not load: " + launchError);
      finish();
      return;
    }
    final GameModule gm = GameModule.getGameModule();
    flushEdt();
    milestone("module loaded");
    collectDialogs("after load");

    SwingUtilities.invokeAndWait(() -> {
      final ValidationReport report = new ValidationReport();
      gm.validate(gm, report);
      for (final String w : report.getWarnings()) say("VALIDATION", w);
    });
    say("INFO", "maps " + Map.getMapList().size() + ", prototypes "
        + gm.getAllDescendantComponentsOf(PrototypeDefinition.class).size());
    checkPieceSlots(gm);

    // Game setup steps (the side choice) would open the wizard: skip them.
    SwingUtilities.invokeAndWait(() -> {
      final GameState gs = gm.getGameState();
      final List<GameSetupStep> steps = new ArrayList<>();
      for (final Iterator<GameSetupStep> it = gs.getUnfinishedSetupSteps(); it.hasNext();) steps.add(it.next());
      for (final GameSetupStep s : steps) gs.removeGameSetupStep(s);
    });
    // the player's "start a new log file?" questions (at the start and the end of a replay)
    gm.getPrefs().setValue(VASSAL.build.module.BasicLogger.PROMPT_NEW_LOG_START, Boolean.FALSE);
    gm.getPrefs().setValue(VASSAL.build.module.BasicLogger.PROMPT_NEW_LOG_END, Boolean.FALSE);

    // New Game, as GameState's "New Game" action does it.
    SwingUtilities.invokeAndWait(() -> {
      try {
        gm.setGameFileMode(GameModule.GameFileMode.NEW_GAME);
        gm.getGameState().setup(false);
        gm.getGameState().setup(true);
        gm.getGameState().freshenStartupGlobalKeyCommands(gm);
      }
      catch (Throwable t) {
        problem("new game failed: " + t);
        t.printStackTrace(out);
      }
    });
    flushEdt();
    milestone("new game started");
    if (!gm.getGameState().isGameStarted()) problem("the new game did not start");
    collectDialogs("after new game");
    reportExpected();
    checkGrids();
    reportTurns(gm, 0);

    if (saveFile != null) {
      // File > Load Game, as GameState.loadGame does it for a chosen file (in the foreground).
      SwingUtilities.invokeAndWait(() -> {
        try {
          gm.getGameState().loadGameInForeground(saveFile);
        }
        catch (Throwable t) {
          problem("loading " + saveFile + " failed: " + t);
          t.printStackTrace(out);
        }
      });
      flushEdt();
      if (!gm.getGameState().isGameStarted()) problem("the saved game did not start");
      collectDialogs("after loading the saved game");
      reportTurns(gm, 0);
    }
    reportPieces("PIECE");
    reportDecks();
    if (dumpFile != null) dumpRestoreCommand(gm);
    if (logSteps > 0) {
      stepLog(gm, logSteps);
      reportPieces("FINAL");
      reportTurns(gm, 0);
    }
    if (!screenshots) checkPieceBehaviour();  // (it takes a step off a unit: not in pictures of the set-up)
    if (turnSteps > 0) reportTurns(gm, turnSteps);
    if (rollDice) rollDice(gm);

    if (screenshots) {
      // What a player sees: the main window, the Counters palette and the turn tracker beside the
      // map (placed by hand: Xvfb has no window manager), the chat with the dice rolled
      SwingUtilities.invokeAndWait(() -> {
        final JFrame f = gm.getPlayerWindow();
        f.setExtendedState(Frame.NORMAL);
        f.setBounds(0, 0, 1600, 1000);
        f.toFront();
        clickToolbar(gm, "Counters");
        clickToolbar(gm, "Turn");
      });
      flushEdt();
      SwingUtilities.invokeAndWait(() -> {
        for (final Window w : Window.getWindows()) {
          if (!w.isShowing() || w == gm.getPlayerWindow()) continue;
          expectedWindows.add(w);
          if ("Counters".equals(title(w))) w.setLocation(1600 - w.getWidth() - 8, 236);
          else w.setLocation(1600 - w.getWidth() - 30, 70);  // the turn tracker, over the chat's right end
          w.toFront();
        }
      });
      Thread.sleep(4000);
      flushEdt();
      SwingUtilities.invokeAndWait(() -> {
        for (final Window w : Window.getWindows()) {
          if (w.isShowing()) {
            final Rectangle b = w.getBounds();
            say("WINDOW", w == gm.getPlayerWindow() ? "main" : title(w), String.valueOf(b.x), String.valueOf(b.y),
                String.valueOf(b.width), String.valueOf(b.height));
          }
        }
      });
      screenshot(tag + "-main");
      for (final Map m : Map.getMapList()) paintMap(m);
      openToolbarWindows(gm);
      Thread.sleep(3000);
      flushEdt();
      screenshot(tag + "-windows");
      collectDialogs("after opening windows");
    }
    dumpChat(gm);
    milestone("done");
    finish();
  }

  /** A modal dialog blocks the event thread, and the check with it: after `ms`, report what is open and stop. */
  static void startWatchdog(long ms) {
    final Thread t = new Thread(() -> {
      try {
        Thread.sleep(ms);
      }
      catch (InterruptedException e) {
        return;
      }
      for (final Window w : Window.getWindows()) {
        if (w instanceof Dialog && w.isShowing()) {
          final List<String> acc = new ArrayList<>();
          texts(w, acc);
          problem("dialog open when the check timed out: '" + title(w) + "': " + String.join(" | ", acc));
        }
      }
      problem("the check did not finish in " + ms / 1000 + " s");
      finish();
    }, "wc-watchdog");
    t.setDaemon(true);
    t.start();
  }

  static void finish() {
    say("END", "uncaught " + uncaught.get());
    out.flush();
    Runtime.getRuntime().halt(0);
  }

  static void flushEdt() throws Exception {
    for (int i = 0; i < 3; i++) {
      SwingUtilities.invokeAndWait(() -> { });
      Thread.sleep(100);
    }
  }

  // ------------------------------------------------------------------ pieces
  static void checkPieceSlots(GameModule gm) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      for (final PieceSlot slot : gm.getAllDescendantComponentsOf(PieceSlot.class)) {
        try {
          final Command c = gm.decode(slot.getPieceDefinition());
          if (!(c instanceof AddPiece) || ((AddPiece) c).getTarget() == null) {
            problem("PieceSlot '" + slot.getConfigureName() + "' does not decode to AddPiece: " + c);
            continue;
          }
          // expand the prototypes as PieceCloner does when a piece is dragged out or placed
          final GamePiece x = PieceCloner.getInstance().clonePiece(slot.getPiece());
          for (GamePiece q = x; q instanceof Decorator; q = ((Decorator) q).getInner()) {
            if (q instanceof UsePrototype) problem("unexpanded prototype in '" + slot.getConfigureName() + "': " + q.getType());
          }
          say("SLOT", slot.getConfigureName(), "ok");
        }
        catch (Throwable t) {
          problem("PieceSlot '" + slot.getConfigureName() + "' failed to decode: " + t);
          t.printStackTrace(out);
        }
      }
    });
  }

  static void reportExpected() throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      for (final Map m : Map.getMapList()) {
        for (final SetupStack ss : m.getComponentsOf(SetupStack.class)) {
          final String loc = ss instanceof DrawPile ? m.locationName(((DrawPile) ss).getPosition())
                                                    : ss.getAttributeValueString("location");
          for (final PieceSlot slot : ss.getAllDescendantComponentsOf(PieceSlot.class)) {
            final GamePiece p = slot.getPiece();
            say("EXPECT", m.getMapName(), loc, p == null ? slot.getConfigureName() : p.getName());
          }
        }
      }
    });
  }

  /** The Step button of a loaded log (BasicLogger.step), until the log is played or `n` steps. */
  static void stepLog(GameModule gm, int n) throws Exception {
    final VASSAL.build.module.BasicLogger logger = (VASSAL.build.module.BasicLogger) gm.getLogger();
    final Method step = VASSAL.build.module.BasicLogger.class.getDeclaredMethod("step");
    step.setAccessible(true);
    int done = 0;
    for (; done < n && logger.isReplaying(); done++) {
      SwingUtilities.invokeAndWait(() -> {
        try {
          step.invoke(logger);
        }
        catch (Exception e) {
          problem("log step failed: " + e);
          e.printStackTrace(out);
        }
      });
    }
    flushEdt();
    say("STEPPED", String.valueOf(done), String.valueOf(logger.isReplaying()));
    collectDialogs("after stepping the log");
  }

  /** Each deck as the game holds it: whether its cards show their backs, whether a card drawn
   *  from it is shown to everybody, how many cards it holds. */
  static void reportDecks() throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      for (final Map m : Map.getMapList()) {
        for (final DrawPile dp : m.getComponentsOf(DrawPile.class)) {
          final VASSAL.counters.Deck d = dp.getDeck();
          if (d == null) {
            problem("deck '" + dp.getConfigureName() + "' has no Deck after the New Game");
            continue;
          }
          say("DECK", m.getMapName(), dp.getConfigureName(), String.valueOf(d.isFaceDown()),
              String.valueOf(d.isDrawFaceUp()), String.valueOf(d.getPieceCount()));
        }
      }
    });
  }

  static void reportPieces(String kind) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      for (final Map m : Map.getMapList()) {
        for (final GamePiece gp : m.getAllPieces()) {
          final List<GamePiece> members = gp instanceof Stack ? ((Stack) gp).asList() : List.of(gp);
          for (final GamePiece p : members) {
            say(kind, m.getMapName(), m.locationName(p.getPosition()), p.getName());
          }
        }
      }
    });
  }

  // ------------------------------------------------------------------ grids
  static void checkGrids() throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      for (final Map m : Map.getMapList()) {
        for (final Board b : m.getBoards()) {
          final MapGrid g = b.getGrid();
          if (g instanceof HexGrid && hexTsv != null) checkHexGrid(m, b, (HexGrid) g);
          else if (g instanceof RegionGrid) checkRegionGrid((RegionGrid) g);
        }
      }
    });
  }

  /** Every hex of HEX.tsv (our id and pixel centre): VASSAL's names for that point, and its centre for the id. */
  static void checkHexGrid(Map m, Board b, HexGrid g) {
    final List<String[]> rows = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(new File(hexTsv).toPath(), StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) if (!line.isBlank()) rows.add(line.split("\t"));
    }
    catch (IOException e) {
      problem("cannot read " + hexTsv + ": " + e);
      return;
    }
    final Rectangle br = b.bounds();
    for (final String[] row : rows) {
      final String id = row[0];
      final double x = Double.parseDouble(row[1]);
      final double y = Double.parseDouble(row[2]);
      final Point p = new Point((int) Math.round(x), (int) Math.round(y));
      Point c = null;
      try {
        c = g.getLocation(id);
      }
      catch (Exception e) {
        c = null;
      }
      final boolean centre = c != null && Math.abs(c.x - x) <= 1.5 && Math.abs(c.y - y) <= 1.5;
      say("HEX", id, g.locationName(p), m.locationName(new Point(p.x + br.x, p.y + br.y)), String.valueOf(centre));
    }
  }

  static void checkRegionGrid(RegionGrid g) {
    for (final Region reg : g.getComponentsOf(Region.class)) {
      final Point p = reg.getOrigin();
      Point c = null;
      try {
        c = g.getLocation(reg.getName());
      }
      catch (Exception e) {
        c = null;
      }
      say("REGION", reg.getName(), String.valueOf(reg.getName().equals(g.locationName(p)) && p.equals(c)));
    }
  }

  // ------------------------------------------------------------------ behaviour
  /** The first unit of each map: its menu, and "Lose step" fired on it if it has one. */
  static void checkPieceBehaviour() throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      for (final Map m : Map.getMapList()) {
        for (final GamePiece gp : m.getAllPieces()) {
          final List<GamePiece> members = gp instanceof Stack ? ((Stack) gp).asList() : List.of(gp);
          final GamePiece p = members.isEmpty() ? null : members.get(0);  // (a Stack's array keeps removed pieces)
          if (p == null || !(p.getProperty("KeyCommands") instanceof KeyCommand[])) continue;
          KeyCommand lose = null;
          final List<String> menu = new ArrayList<>();
          for (final KeyCommand k : (KeyCommand[]) p.getProperty("KeyCommands")) {
            menu.add(k.getName());
            if ("Lose step".equals(k.getName())) lose = k;
          }
          say("MENU", m.getMapName(), p.getName(), String.join(", ", menu));
          if (lose != null) {
            p.setProperty(VASSAL.counters.Properties.SNAPSHOT, ((VASSAL.counters.PropertyExporter) p).getProperties());
            final String before = p.getName();
            p.keyEvent(lose.getKeyStroke());
            say("STEP", before, p.getName());
          }
          break;
        }
      }
    });
  }

  /** What File > Save would write for the game now (the decoded savedGame entry), for comparison. */
  static void dumpRestoreCommand(GameModule gm) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      try {
        Files.writeString(dumpFile.toPath(), gm.encode(gm.getGameState().getRestoreCommand()), StandardCharsets.UTF_8);
      }
      catch (Exception e) {
        problem("cannot write the restore command: " + e);
      }
    });
  }

  /** The turn tracker's text now, then after each of `steps` presses of Next. */
  static void reportTurns(GameModule gm, int steps) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      try {
        final Method text = TurnTracker.class.getDeclaredMethod("getTurnString");
        final Method next = TurnTracker.class.getDeclaredMethod("next");
        text.setAccessible(true);
        next.setAccessible(true);
        for (final TurnTracker t : gm.getAllDescendantComponentsOf(TurnTracker.class)) {
          if (steps == 0) say("TURN", "now", (String) text.invoke(t));
          for (int i = 0; i < steps; i++) {
            next.invoke(t);
            say("TURN", "next", (String) text.invoke(t));
          }
        }
      }
      catch (Exception e) {
        problem("turn tracker: " + e);
        e.printStackTrace(out);
      }
    });
  }

  static void rollDice(GameModule gm) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      for (final DiceButton d : gm.getAllDescendantComponentsOf(DiceButton.class)) {
        for (final Component c : gm.getToolBar().getComponents()) {
          if (c instanceof AbstractButton && d.getConfigureName().equals(((AbstractButton) c).getText())) {
            ((AbstractButton) c).doClick();
          }
        }
      }
    });
  }

  // ------------------------------------------------------------------ windows, dialogs, chat
  static void clickToolbar(GameModule gm, String text) {
    for (final Component c : gm.getToolBar().getComponents()) {
      if (c instanceof AbstractButton && c.isVisible() && text.equals(((AbstractButton) c).getText())) {
        ((AbstractButton) c).doClick();
        return;
      }
    }
    problem("no toolbar button '" + text + "'");
  }

  static void openToolbarWindows(GameModule gm) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      final JToolBar tb = gm.getToolBar();
      for (final Component c : tb.getComponents()) {
        if (c instanceof AbstractButton && c.isVisible()) {
          final String t = ((AbstractButton) c).getText();
          if (t != null && (t.contains("Charts") || t.contains("Holding"))) {
            try {
              ((AbstractButton) c).doClick();
            }
            catch (Throwable e) {
              problem("toolbar button '" + t + "' threw " + e);
            }
          }
        }
      }
      int x = 0;
      for (final Window w : Window.getWindows()) {
        if (w.isShowing() && w != gm.getPlayerWindow() && !expectedWindows.contains(w)) {
          expectedWindows.add(w);
          w.setBounds(x, 480, Math.min(w.getWidth(), 780), Math.min(w.getHeight(), 520));
          x += 800;
          w.toFront();
        }
      }
    });
  }

  static String title(Window w) {
    if (w instanceof Frame) return ((Frame) w).getTitle();
    if (w instanceof Dialog) return ((Dialog) w).getTitle();
    return "";
  }

  static void texts(Component c, List<String> acc) {
    if (c instanceof javax.swing.JLabel) {
      final String t = ((javax.swing.JLabel) c).getText();
      if (t != null && !t.isBlank()) acc.add(t);
    }
    else if (c instanceof JTextComponent) {
      final String t = ((JTextComponent) c).getText();
      if (t != null && !t.isBlank()) acc.add(t.length() > 300 ? t.substring(0, 300) + "..." : t);
    }
    if (c instanceof Container) for (final Component k : ((Container) c).getComponents()) texts(k, acc);
  }

  /** A dialog VASSAL opened by itself (an error, a question) is a problem. */
  static void collectDialogs(String when) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      for (final Window w : Window.getWindows()) {
        if (w instanceof Dialog && w.isShowing() && !expectedWindows.contains(w)) {
          final List<String> acc = new ArrayList<>();
          texts(w, acc);
          problem("dialog open " + when + ": '" + title(w) + "': " + String.join(" | ", acc));
        }
      }
    });
  }

  static void dumpChat(GameModule gm) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      try {
        final java.lang.reflect.Field f = VASSAL.build.module.Chatter.class.getDeclaredField("conversationPane");
        f.setAccessible(true);
        final JTextComponent tp = (JTextComponent) f.get(gm.getChatter());
        final String text = tp.getDocument().getText(0, tp.getDocument().getLength());
        for (final String line : text.split("\n")) if (!line.isBlank()) say("CHAT", line.strip());
      }
      catch (Exception e) {
        problem("cannot read the chat: " + e);
      }
    });
  }

  /** The whole (virtual) screen, with java.awt.Robot. */
  static void screenshot(String name) {
    try {
      final java.awt.Dimension d = java.awt.Toolkit.getDefaultToolkit().getScreenSize();
      final BufferedImage img = new Robot().createScreenCapture(new Rectangle(0, 0, d.width, d.height));
      final File f = new File(outDir, name + ".png");
      ImageIO.write(img, "png", f);
      say("SCREENSHOT", f.getPath());
    }
    catch (Exception e) {
      problem("screenshot failed: " + e);
    }
  }

  /** A whole map view (all boards, all pieces) painted into a PNG, as the map window draws it. */
  static void paintMap(Map m) throws Exception {
    final JComponent view = m.getView();
    final java.awt.Dimension d = view.getPreferredSize();
    final double scale = Math.min(1.0, Math.sqrt(12e6 / Math.max(1.0, (double) d.width * d.height)));
    final int w = (int) Math.ceil(d.width * scale);
    final int h = (int) Math.ceil(d.height * scale);
    final BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    for (int pass = 0; pass < 3; pass++) {  // tiles load asynchronously: paint until they are in
      SwingUtilities.invokeAndWait(() -> {
        view.setSize(d);
        final Graphics2D g = img.createGraphics();
        g.setColor(java.awt.Color.WHITE);
        g.fillRect(0, 0, w, h);
        g.scale(scale, scale);
        m.paintRegion(g, new Rectangle(0, 0, d.width, d.height), view);
        g.dispose();
      });
      Thread.sleep(2000);
    }
    final File f = new File(outDir, tag + "-map-" + m.getMapName().replaceAll("[^A-Za-z0-9]+", "_") + ".png");
    ImageIO.write(img, "png", f);
    say("SCREENSHOT", f.getPath());
  }
}
