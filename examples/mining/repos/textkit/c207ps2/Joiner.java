package org.example.textkit;

import java.util.List;

public final class Joiner {

    public static String join(List<String> parts, String separator) {
        return String.join(separator, parts);
    }
}
