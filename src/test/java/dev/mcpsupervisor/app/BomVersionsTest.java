package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The BOM has no parent (importing it must not pin the build's own versions in a consumer's
 * project), so its versions are written twice: here they must equal the parent's, and it must list
 * every published module.
 */
class BomVersionsTest {

  private static final Path ROOT = Path.of(System.getProperty("basedir", "."), "..");

  @Test
  void theBomPinsTheVersionsTheBuildUses() throws Exception {
    Document parent = read(ROOT.resolve("pom.xml"));
    Document bom = read(ROOT.resolve("bom/pom.xml"));

    for (String property :
        List.of(
            "jackson.version",
            "pekko.version",
            "pekko-http.version",
            "scala.binary.version",
            "scala-library.version",
            "typesafe-config.version")) {
      assertEquals(property(parent, property), property(bom, property), property);
    }
    assertEquals(
        property(read(ROOT.resolve("integrations/langchain4j/pom.xml")), "kotlin-stdlib.version"),
        property(bom, "kotlin-stdlib.version"),
        "the Kotlin stdlib the LangChain4j module is built with");
    assertEquals(projectVersion(parent), projectVersion(bom), "the BOM's own version");
    assertEquals(
        property(parent, "spotless.version"),
        bom.getElementsByTagName("version")
            .item(bom.getElementsByTagName("version").getLength() - 1)
            .getTextContent()
            .trim(),
        "the BOM's spotless plugin (its last version element)");
  }

  @Test
  void theBomListsEveryPublishedArtifact() throws Exception {
    List<String> managed = new ArrayList<>();
    NodeList artifacts = read(ROOT.resolve("bom/pom.xml")).getElementsByTagName("artifactId");
    for (int i = 0; i < artifacts.getLength(); i++) {
      managed.add(artifacts.item(i).getTextContent().trim());
    }
    for (String artifact :
        List.of(
            "mcp-supervisor-protocol",
            "mcp-supervisor-upstream",
            "mcp-supervisor-actors",
            "mcp-supervisor-cluster",
            "mcp-supervisor-http",
            "mcp-supervisor-spring-ai",
            "mcp-supervisor-langchain4j")) {
      assertTrue(managed.contains(artifact), artifact + " is missing from the BOM");
    }
  }

  private static Document read(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  private static String property(Document pom, String name) {
    NodeList found = pom.getElementsByTagName(name);
    assertEquals(1, found.getLength(), name + " in " + pom.getDocumentURI());
    return found.item(0).getTextContent().trim();
  }

  private static String projectVersion(Document pom) {
    for (Node child = pom.getDocumentElement().getFirstChild();
        child != null;
        child = child.getNextSibling()) {
      if (child instanceof Element element && element.getTagName().equals("version")) {
        return element.getTextContent().trim();
      }
    }
    throw new AssertionError("no project version in " + pom.getDocumentURI());
  }
}
