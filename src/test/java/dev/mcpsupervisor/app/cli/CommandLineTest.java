package dev.mcpsupervisor.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Dispatch to a command by its first argument, help, version, and the exit statuses. */
class CommandLineTest {

  /** Says its name and its one flag's value; fails as asked. */
  private record Echo(String name) implements Command {
    @Override
    public Syntax syntax() {
      return new Syntax(
          name,
          "Echoes " + name + ".",
          List.of(),
          List.of(Flag.option("--say", "TEXT", "what to say").withDefault("hi")));
    }

    @Override
    public int run(Arguments arguments, PrintWriter out, PrintWriter err) {
      String say = arguments.text("--say");
      if (say.equals("boom")) {
        throw new IllegalStateException("boom");
      }
      if (say.equals("wrong")) {
        throw new UsageException("--say must not be wrong");
      }
      out.println(name + " " + say);
      return 7;
    }
  }

  private static final CommandLine LINE =
      new CommandLine(new Echo("tool"), List.of(new Echo("sub")), "tool 1.2.3");

  private record Result(int status, String out, String err) {}

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = LINE.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(status, out.toString(), err.toString());
  }

  @Test
  void theFirstArgumentNamesACommandOrTheMainOneRuns() {
    assertEquals(new Result(7, "tool hi\n", ""), run());
    assertEquals(new Result(7, "sub yo\n", ""), run("sub", "--say", "yo"));
    assertEquals(new Result(7, "tool sub\n", ""), run("--say", "sub"));
  }

  @Test
  void helpListsTheCommandsAndVersionPrintsIt() {
    Result help = run("--help");
    assertEquals(0, help.status());
    assertTrue(help.out().startsWith("Usage: tool [OPTIONS] [COMMAND]\n"), help.out());
    assertTrue(help.out().contains("\n  sub  Echoes sub.\n"), help.out());
    Result subHelp = run("sub", "-h");
    assertTrue(subHelp.out().startsWith("Usage: tool sub [OPTIONS]\n"), subHelp.out());
    assertEquals(new Result(0, "tool 1.2.3\n", ""), run("-V"));
  }

  @Test
  void aUsageErrorIsOneLineAndExitTwo() {
    assertEquals(
        new Result(2, "", "tool: Unknown option: '--sya'; did you mean --say? (see --help)\n"),
        run("--sya", "x"));
    assertEquals(
        new Result(2, "", "tool sub: --say must not be wrong (see --help)\n"),
        run("sub", "--say", "wrong"));
  }

  @Test
  void anUnexpectedFailureIsExitOneWithItsTrace() {
    Result failed = run("--say", "boom");
    assertEquals(1, failed.status());
    assertTrue(failed.err().startsWith("java.lang.IllegalStateException: boom"), failed.err());
  }
}
