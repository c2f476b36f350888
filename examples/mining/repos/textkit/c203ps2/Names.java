package org.example.textkit;

public final class Names {

    public static String initials(String first, String last) {
        if (first.isEmpty() || last.isEmpty()) {
            return "";
        }
        return first.substring(0, 1) + last.substring(0, 1);
    }
}
