package dev.mcpsupervisor.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificate authorities and node key stores made for a test with the JDK's keytool (PKCS #12,
 * RSA), in a directory the test owns: no private key is checked in.
 */
final class TestCertificates {

  static final String PASSWORD = "test-store-password";

  private static final long KEYTOOL_SECONDS = 120;

  private final Path dir;

  TestCertificates(Path dir) {
    this.dir = dir;
  }

  /** A certificate authority: its key store, and a trust store holding its certificate only. */
  record Authority(String name, Path keyStore, Path certificate, Path trustStore) {}

  Authority authority(String name) throws IOException, InterruptedException {
    Path keyStore = dir.resolve(name + ".p12");
    Path certificate = dir.resolve(name + ".pem");
    Path trustStore = dir.resolve(name + "-trust.p12");
    keytool(
        "-genkeypair",
        "-alias",
        "ca",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "2",
        "-dname",
        "CN=" + name,
        "-ext",
        "bc:c",
        "-keystore",
        keyStore.toString());
    keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        "ca",
        "-keystore",
        keyStore.toString(),
        "-file",
        certificate.toString());
    keytool(
        "-importcert",
        "-noprompt",
        "-alias",
        "ca",
        "-file",
        certificate.toString(),
        "-keystore",
        trustStore.toString());
    return new Authority(name, keyStore, certificate, trustStore);
  }

  /** A node's key store: its key, and its certificate signed by {@code authority}. */
  Path node(String name, Authority authority) throws IOException, InterruptedException {
    Path keyStore = dir.resolve(name + ".p12");
    Path request = dir.resolve(name + ".csr");
    Path certificate = dir.resolve(name + ".pem");
    keytool(
        "-genkeypair",
        "-alias",
        "node",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "2",
        "-dname",
        "CN=" + name,
        "-keystore",
        keyStore.toString());
    keytool(
        "-certreq",
        "-alias",
        "node",
        "-keystore",
        keyStore.toString(),
        "-file",
        request.toString());
    keytool(
        "-gencert",
        "-rfc",
        "-alias",
        "ca",
        "-keystore",
        authority.keyStore().toString(),
        "-infile",
        request.toString(),
        "-outfile",
        certificate.toString(),
        "-validity",
        "2",
        "-ext",
        "ku:c=digitalSignature,keyEncipherment",
        "-ext",
        "eku=serverAuth,clientAuth");
    // the chain's root first, so that the signed certificate is accepted as the key's reply
    keytool(
        "-importcert",
        "-noprompt",
        "-alias",
        "ca",
        "-file",
        authority.certificate().toString(),
        "-keystore",
        keyStore.toString());
    keytool(
        "-importcert",
        "-alias",
        "node",
        "-file",
        certificate.toString(),
        "-keystore",
        keyStore.toString());
    return keyStore;
  }

  private static void keytool(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    // a short-lived JVM: the quickest start
    command.addAll(List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"));
    command.addAll(List.of(arguments));
    command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(KEYTOOL_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException("keytool " + arguments[0] + " failed: " + output);
      }
    } finally {
      process.destroyForcibly();
    }
  }
}
